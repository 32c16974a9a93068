/**
 * Admission and release on Redis (types.ts `Store.admit` / `Store.release`).
 *
 * One Redis server, or a plan whose keys share a shard: the whole plan is ONE script call (one round trip),
 * atomic (D10). A Redis Cluster with a plan spanning shards (rule set A: a key, its network, its account) runs an
 * ordered reserve-then-compensate (docs/shared-state.md): slot steps in plan order, then one conditional reserve per
 * shard of free counters, then the overflow step; each step is atomic in its shard and checks its own limit, so no
 * step can take more than its rule allows; a later refusal releases the earlier steps through their marks. Steps in
 * one shard are merged (the last slot set with the first counter group; everything from the counters' and wallet's
 * shard on when they share one), so keyed requests of either rule set take two steps. A plan of several units is
 * one script for all of them on either path (admission-units.ts).
 */
import type { Clock } from '../../core/clock';
import type { AdmissionPlan, AdmissionResult, Ticket } from '../types';
import { tightestQuota } from '../quota';
import { unitsOf } from '../units';
import { redisFault, StoreUnavailableError } from './errors';
import { inflightMember } from './keeper';
import { shardOf, type Layout } from './layout';
import { scriptsOf, type RedisClient } from './redis-client';
import {
  parseStepReply,
  stepArgs,
  stepMarks,
  type MarkRef,
  type SharedUndo,
  type StepInput,
  type StepReply,
} from './step';
import { writeAtEndOfTurn } from './turn-writes';
import { admitUnitsStepwise, unitsTicket, type StepRunner } from './admission-units';
import { admitStepwise } from './admission-stepwise';
import { usedOf, type Seen } from './plan-shards';

export type { SharedUndo } from './step';

type Refusal = Extract<AdmissionResult, { admitted: false }>;

/** Wallet initialisation (from the ledger, once) for an account the script found without a Redis balance. */
export type WalletInit = (accountId: string) => Promise<void>;

/** Admissions that failed with an unknown outcome: their marks are released once Redis answers again. */
export type Recovery = (marks: MarkRef[], planId: string) => void;

/** Whether a failed command may have reached Redis (ioredis refuses unsent commands with these messages). */
function wasSent(fault: Error): boolean {
  return !/enableOfflineQueue|isn't writeable|isn't ready/.test(fault.message);
}

/** The shard whose stream gets the admission's event on a single step. */
function primaryShard(plan: AdmissionPlan): number {
  if (plan.overflow.kind === 'bill') return shardOf(`account:${plan.overflow.accountId}`);
  const first = plan.free[0]?.id ?? plan.slots[0]?.scope ?? plan.id;
  return shardOf(first);
}

/** A ticket's undo record, checked (a ticket from another store or a mangled copy is a bug). */
export function sharedUndo(ticket: Ticket, op: string): SharedUndo {
  const undo = ticket.undo as Partial<SharedUndo> | null;
  if (!undo || undo.v !== 'shared-1' || !Array.isArray(undo.marks)) {
    throw new TypeError(`${op}: the ticket was not issued by the shared store`);
  }
  return undo as SharedUndo;
}

/** Check the plan's numbers before anything runs (a bad plan is a bug, not a refusal). */
function checkPlan(plan: AdmissionPlan): void {
  if (
    plan.overflow.kind === 'bill' &&
    (!Number.isSafeInteger(plan.overflow.price) || plan.overflow.price <= 0)
  ) {
    throw new RangeError(`admission plan ${plan.id}: price must be a positive safe integer`);
  }
  if (!Number.isSafeInteger(plan.now) || !/^\d{4}-\d{2}-\d{2}$/.test(plan.day)) {
    throw new RangeError(`admission plan ${plan.id}: now must be epoch ms and day YYYY-MM-DD`);
  }
}

/** An admission step waiting for the end of its turn (one Redis server). */
interface Queued {
  keys: string[];
  spec: string;
  resolve: (reply: unknown) => void;
  reject: (err: unknown) => void;
}

/** Executes plans against Redis. */
export class Admitter implements StepRunner {
  /** The steps of this turn, sent as one script call at its end (null: none queued). */
  private queued: Queued[] | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly layout: Layout,
    private readonly cluster: boolean,
    private readonly initWallet: WalletInit,
    private readonly recover: Recovery,
    private readonly clock: Clock,
    private readonly notReady: () => void = () => undefined,
  ) {}

  /** Execute a plan all-or-nothing. */
  async admit(plan: AdmissionPlan): Promise<AdmissionResult> {
    checkPlan(plan);
    const n = plan.units === undefined ? 1 : unitsOf(plan);
    if (!this.cluster) return this.admitOneStep(plan, n);
    const shards = new Set<number>([
      ...plan.slots.map((s) => shardOf(s.scope)),
      ...plan.free.map((c) => shardOf(c.id)),
      ...(plan.overflow.kind === 'bill' ? [shardOf(`account:${plan.overflow.accountId}`)] : []),
    ]);
    if (shards.size <= 1) return this.admitOneStep(plan, n);
    return n === 1 ? admitStepwise(this, plan) : admitUnitsStepwise(this, plan, n);
  }

  /** Release every step of a ticket (each step once, by its mark; a plan's ticket holds its units' marks too). */
  async release(ticket: Ticket): Promise<void> {
    const undo = sharedUndo(ticket, 'release');
    // Redis down: the release is retried in the background (marks make it exactly once) and the fault reported.
    await this.compensate(ticket.planId, undo.marks);
  }

  /** Release marks in reverse order (the last step first). */
  async releaseMarks(planId: string, marks: readonly MarkRef[]): Promise<void> {
    for (const [shard, step, unit] of [...marks].reverse()) {
      const id = unit ?? planId;
      try {
        await scriptsOf(this.redis).ggRelease(
          2,
          this.layout.mark(shard, id, step),
          this.layout.inflight(shard),
          this.clock.now(),
          inflightMember(id, step),
        );
      } catch (err) {
        throw redisFault(err);
      }
    }
  }

  /** Give back what earlier steps took; when Redis fails meanwhile, leave it to the background release. */
  async compensate(planId: string, marks: readonly MarkRef[]): Promise<void> {
    try {
      await this.releaseMarks(planId, marks);
    } catch (err) {
      if (err instanceof StoreUnavailableError) this.recover([...marks], planId);
      throw err;
    }
  }

  async runStep(plan: AdmissionPlan, s: StepInput, done: MarkRef[]): Promise<StepReply> {
    const { keys, spec } = stepArgs(this.layout, plan, s, this.clock.now());
    let reply: StepReply;
    try {
      writeAtEndOfTurn(this.redis);
      reply = parseStepReply(
        this.cluster
          ? await scriptsOf(this.redis).ggAdmit(keys.length, ...keys, spec)
          : await this.admitInTurn(keys, spec),
      );
    } catch (err) {
      const fault = redisFault(err);
      // The outcome is unknown (the reply may have been lost): release this step and the earlier ones later.
      if (fault instanceof StoreUnavailableError) {
        const own: MarkRef[] =
          s.units !== undefined
            ? stepMarks(plan.id, s)
            : s.countersOptional
              ? [
                  [s.shard, s.step],
                  [s.shard, s.step + 1],
                ]
              : [[s.shard, s.step]];
        const marks: MarkRef[] = wasSent(fault) ? [...done, ...own] : [...done];
        if (marks.length > 0) this.recover(marks, plan.id);
      }
      throw fault;
    }
    if (reply.kind === 'needs-wallet' && s.overflow.kind === 'bill') {
      await this.initWallet(s.overflow.accountId);
      return this.runStep(plan, s, done);
    }
    if (reply.kind === 'not-ready') {
      // Redis restarted empty: nothing was written by this step; earlier steps are given back, counters rebuilt.
      if (done.length > 0) this.recover([...done], plan.id);
      this.notReady();
      throw new StoreUnavailableError('redis', 'counters are being rebuilt after Redis restarted empty');
    }
    if (reply.kind === 'duplicate') throw new Error(`admission plan ${plan.id} was already admitted`);
    if (reply.kind === 'needs-wallet') throw new Error('admission script asked for a wallet without billing');
    return reply;
  }

  /**
   * One Redis server: the admission script for this step, sent with the other steps of this event-loop turn as one
   * call (lua-admit.ts ADMIT_MANY_LUA) at the turn's end, when the connection's corked writes leave too
   * (turn-writes.ts); so a lone request waits for nothing but its own turn, as before. Each step keeps its own reply;
   * a failed call fails every step of it, each then recovered by its marks as a lone call's would be.
   */
  private admitInTurn(keys: string[], spec: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.queued !== null) {
        this.queued.push({ keys, spec, resolve, reject });
        return;
      }
      this.queued = [{ keys, spec, resolve, reject }];
      setImmediate(() => this.sendTurn());
    });
  }

  private sendTurn(): void {
    const batch = this.queued ?? [];
    this.queued = null;
    const scripts = scriptsOf(this.redis);
    if (batch.length === 1) {
      const only = batch[0]!;
      scripts.ggAdmit(only.keys.length, ...only.keys, only.spec).then(only.resolve, only.reject);
      return;
    }
    const keys: string[] = [];
    const args: (string | number)[] = [];
    for (const q of batch) {
      for (const k of q.keys) keys.push(k);
      args.push(q.keys.length, q.spec);
    }
    scripts.ggAdmitMany(keys.length, ...keys, ...args).then(
      (replies) => {
        const list = replies as unknown[];
        for (let i = 0; i < batch.length; i++) {
          if (i < list.length) batch[i]!.resolve(list[i]);
          else batch[i]!.reject(new Error('admission script: the batch reply is short'));
        }
      },
      (err: unknown) => {
        for (const q of batch) q.reject(err);
      },
    );
  }

  ticket(plan: AdmissionPlan, marks: MarkRef[]): Ticket {
    const undo: SharedUndo = { v: 'shared-1', marks };
    return { planId: plan.id, undo };
  }

  private async admitOneStep(plan: AdmissionPlan, units: number): Promise<AdmissionResult> {
    const shard = primaryShard(plan);
    const step: StepInput = {
      shard,
      step: 0,
      slots: plan.slots,
      counters: plan.free,
      notFree: false,
      overflow: plan.overflow,
      event: true,
    };
    if (units > 1) step.units = units;
    const r = await this.runStep(plan, step, []);
    if (r.kind !== 'admitted') return this.refusal(r, tightestQuota(plan.free, usedOf(r)));
    const ticket = units > 1 ? unitsTicket(plan.id, units, shard) : this.ticket(plan, [[shard, 0]]);
    return {
      admitted: true,
      billed: r.billed,
      charged: r.charged,
      quota: tightestQuota(plan.free, r.used),
      ticket,
    };
  }

  refusal(r: StepReply, quota: Refusal['quota']): Refusal {
    if (r.kind !== 'refused') throw new Error(`admission: expected a refusal, got ${r.kind}`);
    const out: Refusal = { admitted: false, code: r.code as Refusal['code'], quota };
    if (r.nextSlotFreeAt !== null) out.nextSlotFreeAt = r.nextSlotFreeAt;
    return out;
  }

  /** The tightest counter's quota (types.ts), reading the counters no step has reported (`seen`) from Redis. */
  async quotaOf(plan: AdmissionPlan, seen: Seen): Promise<Refusal['quota']> {
    try {
      const used = await Promise.all(
        plan.free.map(async (c, i) => {
          const known = seen[i];
          if (known !== undefined) return known;
          return Number((await this.redis.get(this.layout.counter(c.id, plan.day))) ?? 0);
        }),
      );
      return tightestQuota(plan.free, used);
    } catch (err) {
      throw redisFault(err);
    }
  }
}

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
import type { AdmissionPlan, AdmissionResult, CounterSpec, SlotSpec, Ticket } from '../types';
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
import { groupsByShard, runsByShard, see, tailShard, usedOf, type Seen } from './plan-shards';

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

/** Executes plans against Redis. */
export class Admitter implements StepRunner {
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
    return n === 1 ? this.admitStepwise(plan) : admitUnitsStepwise(this, plan, n);
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
    const { keys, spec } = stepArgs(this.layout, plan, s);
    let reply: StepReply;
    try {
      writeAtEndOfTurn(this.redis);
      reply = parseStepReply(await scriptsOf(this.redis).ggAdmit(keys.length, ...keys, spec));
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

  /** Cluster, several shards: slots → free counters → overflow, compensating on a later refusal. */
  private async admitStepwise(plan: AdmissionPlan): Promise<AdmissionResult> {
    const done: MarkRef[] = [];
    const tail = tailShard(plan);
    // When the counters and the wallet share one shard, the trailing slots in that shard and everything after them
    // are one step (rule set B: the account's address set, counter and wallet); earlier slots are steps of their own.
    let split = plan.slots.length;
    if (tail !== null) while (split > 0 && shardOf(plan.slots[split - 1]?.scope ?? '') === tail) split -= 1;
    const base = {
      counters: [] as CounterSpec[],
      notFree: false,
      overflow: { kind: 'free' } as const,
      event: false,
    };
    const runs = runsByShard<SlotSpec>(plan.slots.slice(0, split), (s) => shardOf(s.scope));
    // The last slot run and the first counter group in one shard share a step (rule set A: the key's slots and
    // its counter), its counter reservation under its own mark.
    const firstGroup = tail === null ? groupsByShard(plan.free)[0] : undefined;
    const merged =
      runs.length > 0 && runs[runs.length - 1]?.shard === firstGroup?.shard ? runs.pop() : undefined;
    for (const run of runs) {
      const r = await this.runStep(
        plan,
        { ...base, shard: run.shard, step: done.length, slots: run.items },
        done,
      );
      if (r.kind !== 'admitted') {
        await this.compensate(plan.id, done);
        return this.refusal(r, await this.quotaOf(plan, []));
      }
      done.push([run.shard, done.length]);
    }
    if (tail !== null) return this.tailStep(plan, tail, plan.slots.slice(split), done);
    const seen: Seen = plan.free.map(() => undefined);
    const free = await this.reserveCounters(plan, done, merged?.items ?? [], seen);
    if (free.refusal) return free.refusal;
    if (free.ok) {
      return {
        admitted: true,
        billed: false,
        charged: 0,
        quota: tightestQuota(plan.free, seen as number[]),
        ticket: this.ticket(plan, done),
      };
    }
    return this.overflowStep(plan, done, seen);
  }

  /** The rest of a plan in one shard, with the plan's full rules (one atomic step). */
  private async tailStep(
    plan: AdmissionPlan,
    shard: number,
    slots: SlotSpec[],
    done: MarkRef[],
  ): Promise<AdmissionResult> {
    const step: StepInput = {
      shard,
      step: done.length,
      slots,
      counters: plan.free,
      notFree: false,
      overflow: plan.overflow,
      event: true,
    };
    const r = await this.runStep(plan, step, done);
    if (r.kind !== 'admitted') {
      await this.compensate(plan.id, done);
      return this.refusal(r, tightestQuota(plan.free, usedOf(r)));
    }
    done.push([shard, done.length]);
    return {
      admitted: true,
      billed: r.billed,
      charged: r.charged,
      quota: tightestQuota(plan.free, r.used),
      ticket: this.ticket(plan, done),
    };
  }

  /**
   * Reserve the free counters shard by shard (each reserve increments only when all its counters are below their
   * limits). The last group writes the event. When a group is full, the groups reserved before are released.
   * Every group's values go to `seen` (as after this request: without a released reservation).
   */
  private async reserveCounters(
    plan: AdmissionPlan,
    done: MarkRef[],
    slots: SlotSpec[],
    seen: Seen,
  ): Promise<{ ok: boolean; refusal?: Refusal }> {
    const groups = groupsByShard(plan.free);
    if (groups.length === 0) {
      // Vacuously free: one step records the usage event.
      const shard = shardOf(plan.slots[0]?.scope ?? plan.id);
      const r = await this.runStep(plan, this.eventStep(shard, done.length, false), done);
      if (r.kind !== 'admitted') throw new Error('admission: a record step was refused');
      done.push([shard, done.length]);
      return { ok: true };
    }
    let reservedFrom = done.length;
    for (const [i, g] of groups.entries()) {
      const withSlots = i === 0 && slots.length > 0;
      const step: StepInput = {
        shard: g.shard,
        step: done.length,
        slots: withSlots ? slots : [],
        counters: g.items,
        notFree: false,
        overflow: { kind: 'refuse', code: 'quota_exceeded' },
        event: i === groups.length - 1,
        countersOptional: withSlots,
      };
      const r = await this.runStep(plan, step, done);
      see(seen, g, usedOf(r));
      if (withSlots) {
        if (r.kind !== 'admitted') {
          await this.compensate(plan.id, done); // a slot refused: nothing of this step was applied
          return { ok: false, refusal: this.refusal(r, await this.quotaOf(plan, seen)) };
        }
        done.push([g.shard, step.step]);
        reservedFrom = done.length;
        if (!r.free) return { ok: false };
        done.push([g.shard, step.step + 1]);
        continue;
      }
      if (r.kind !== 'admitted') {
        const reserved = done.splice(reservedFrom);
        await this.compensate(plan.id, reserved);
        // The groups before this one were reserved and just released: report their values without this request.
        for (const before of groups.slice(0, i)) for (const at of before.at) seen[at] = (seen[at] ?? 1) - 1;
        return { ok: false };
      }
      done.push([g.shard, done.length]);
    }
    return { ok: true };
  }

  private eventStep(shard: number, step: number, notFree: boolean): StepInput {
    return { shard, step, slots: [], counters: [], notFree, overflow: { kind: 'free' }, event: true };
  }

  /** Not free on a cluster: refuse, serve free (Unlimited), or bill in the account's shard. */
  private async overflowStep(plan: AdmissionPlan, done: MarkRef[], seen: Seen): Promise<AdmissionResult> {
    const o = plan.overflow;
    if (o.kind === 'refuse') {
      await this.compensate(plan.id, done);
      return { admitted: false, code: o.code, quota: await this.quotaOf(plan, seen) };
    }
    const shard =
      o.kind === 'bill' ? shardOf(`account:${o.accountId}`) : shardOf(plan.slots[0]?.scope ?? plan.id);
    const step = { ...this.eventStep(shard, done.length, true), overflow: o };
    // The counters not seen yet (after the full group) are read alongside the overflow step: one round trip.
    const read = this.quotaOf(plan, seen).then(
      (q) => ({ q }),
      (fault: unknown) => ({ fault }),
    );
    const r = await this.runStep(plan, step, done);
    const quota = await read;
    if (r.kind === 'admitted') done.push([shard, done.length]);
    if ('fault' in quota) {
      await this.compensate(plan.id, done); // a fault changes nothing either: give the whole admission back
      throw quota.fault;
    }
    if (r.kind !== 'admitted') {
      await this.compensate(plan.id, done);
      return this.refusal(r, quota.q);
    }
    return {
      admitted: true,
      billed: r.billed,
      charged: r.charged,
      quota: quota.q,
      ticket: this.ticket(plan, done),
    };
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

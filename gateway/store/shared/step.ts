/**
 * One admission step: part of a plan executed by the admission script in one shard (one EVALSHA). On one Redis
 * server, or when every key of the plan shares a shard, the whole plan is one step.
 */
import type { AdmissionPlan, CounterSpec, SlotSpec } from '../types';
import { unitId } from '../units';
import type { Layout } from './layout';

/**
 * Where a step's admission mark lives: released by (shard, step); `unit`: the mark is that unit's of a plan of
 * several units (its id, units.ts `unitId`), held by the plan's ticket too so the plan settles its units with it.
 */
export type MarkRef = [shard: number, step: number, unit?: string];

/** The shared store's Ticket.undo: the marks of the admission's steps. */
export interface SharedUndo {
  v: 'shared-1';
  marks: MarkRef[];
}

/** What a step does (built into the script's JSON spec). */
export interface StepInput {
  shard: number;
  step: number;
  slots: readonly SlotSpec[];
  counters: readonly CounterSpec[];
  /** Skip the free check: this step only handles the overflow (cluster mode). */
  notFree: boolean;
  overflow: AdmissionPlan['overflow'];
  /** Whether this step writes the admission's event (usage, charge, counters) to its shard's stream. */
  event: boolean;
  /**
   * Cluster: slots and the first counter group in one step. The slots are admitted even when a counter is full
   * (then nothing is reserved and there is no event); the reservation gets its own mark (step + 1).
   */
  countersOptional?: boolean;
  /** A step of units (types.ts `Store.admit`): this many, each with its own mark; absent: one unit, no unit mark. */
  units?: number;
  /** The number of the step's first unit (cluster: the billed units follow the free ones); absent: 0. */
  firstUnit?: number;
  /** Reserve as many of the units as the step's counters allow (cluster: a counter group), nothing else. */
  partial?: boolean;
}

/** The marks a step of units takes: its own (the slot changes) and each unit's, named by the unit's id. */
export function stepMarks(planId: string, s: StepInput, units = s.units ?? 0): MarkRef[] {
  const marks: MarkRef[] = [[s.shard, s.step]];
  const first = s.firstUnit ?? 0;
  for (let i = 0; i < units; i++) marks.push([s.shard, s.step, unitId(planId, first + i)]);
  return marks;
}

export type StepReply =
  | {
      kind: 'refused';
      code: string;
      nextSlotFreeAt: number | null;
      /** The step's counters' used values (its `counters` order), unchanged by a refusal. */
      used: number[];
    }
  | {
      kind: 'admitted';
      billed: boolean;
      charged: number;
      /** The step's counters' used values (its `counters` order) after this step. */
      used: number[];
      /** The step's counters were incremented (the request is free as far as this step goes). */
      free: boolean;
      /** A step of units: how many units were counted free (reserved, in a partial step). */
      freeUnits: number;
    }
  | { kind: 'needs-wallet' }
  | { kind: 'not-ready' }
  | { kind: 'duplicate' };

/**
 * Mark TTL, a backstop only: a mark is deleted when its admission is kept (answered) or released, and the sweeper
 * releases one left unsettled past the reservation timeout. One that outlives all three (no keep and no sweeper)
 * leaves Redis after an hour, so Redis memory stays O(requests in flight), not O(requests) (issue 13).
 */
export const MARK_TTL_S = 3_600;
/** Counter TTL: a day's counter is useless after its day; the TTL only cleans up. */
export const COUNTER_TTL_S = 3 * 86_400;

/** The script's KEYS and ARGV for a step of `plan`. */
export function stepArgs(
  layout: Layout,
  plan: AdmissionPlan,
  s: StepInput,
  leaseNow: number = plan.now,
): { keys: string[]; spec: string } {
  const keys = [layout.mark(s.shard, plan.id, s.step), layout.inflight(s.shard), layout.ready(s.shard)];
  const add = (k: string) => keys.push(k);
  const slots = s.slots.map((sl) => {
    add(layout.slots(sl.scope));
    return {
      k: keys.length,
      m: sl.member,
      cap: sl.capacity,
      fixed: sl.mode === 'fixed',
      w: sl.windowMs,
      code: sl.refuse,
    };
  });
  const ctr = s.counters.map((c) => {
    add(layout.counter(c.id, plan.day));
    return { k: keys.length, l: c.limit };
  });
  let of: object = { t: s.overflow.kind };
  if (s.overflow.kind === 'refuse') of = { t: 'refuse', code: s.overflow.code };
  if (s.overflow.kind === 'bill') {
    add(layout.wallet(s.overflow.accountId));
    of = {
      t: 'bill',
      k: keys.length,
      acc: s.overflow.accountId,
      price: s.overflow.price,
      code: s.overflow.refuse,
    };
  }
  let ev = 0;
  if (s.event) {
    add(layout.stream(s.shard));
    ev = keys.length;
  }
  let mark2 = 0;
  if (s.countersOptional) {
    add(layout.mark(s.shard, plan.id, s.step + 1));
    mark2 = keys.length;
  }
  const n = s.units;
  if (n !== undefined)
    return {
      keys,
      spec: JSON.stringify({
        ...unitsSpec(layout, plan, s, keys, n, slots, ctr, of, ev),
        lnow: leaseNow,
        lst: accountStream(layout, s, ev),
      }),
    };
  const spec = oneStepSpec(plan, s, slots, ctr, of, ev, s.countersOptional === true, mark2);
  spec['lnow'] = leaseNow;
  spec['lst'] = accountStream(layout, s, ev);
  return { keys, spec: JSON.stringify(spec) };
}

/** The index of the step's stream when it is its wallet's account's (a reclaimed lease refunds there), else 0. */
function accountStream(layout: Layout, s: StepInput, ev: number): number {
  if (ev === 0 || s.overflow.kind !== 'bill') return 0;
  return layout.accountShard(s.overflow.accountId) === s.shard ? ev : 0;
}

/** The script's spec of one step (the fields every step has; a step of several units adds its own). */
function oneStepSpec(
  plan: AdmissionPlan,
  s: StepInput,
  slots: object[],
  ctr: object[],
  of: object,
  ev: number,
  ctrOpt: boolean,
  mark2: number,
): Record<string, unknown> {
  return {
    id: plan.id,
    st: s.step,
    now: plan.now,
    day: plan.day,
    ttl: MARK_TTL_S,
    ctrTtl: COUNTER_TTL_S,
    slots,
    ctr,
    notFree: s.notFree,
    of,
    ev,
    u: plan.usage,
    f: plan.free.map((c) => c.id),
    key: plan.keyId ?? '',
    ctrOpt,
    mark2,
  };
}

/** The spec of a step of several units: as one unit's, plus their count and their marks (added to `keys`). */
function unitsSpec(
  layout: Layout,
  plan: AdmissionPlan,
  s: StepInput,
  keys: string[],
  n: number,
  slots: object[],
  ctr: object[],
  of: object,
  ev: number,
): object {
  const um = keys.length + 1;
  const u0 = s.firstUnit ?? 0;
  for (let i = 0; i < n; i++) keys.push(layout.mark(s.shard, unitId(plan.id, u0 + i), s.step));
  return {
    ...oneStepSpec(plan, s, slots, ctr, of, ev, false, 0),
    n,
    um,
    u0,
    part: s.partial === true,
  };
}

/** Parse the admission script's reply. */
export function parseStepReply(reply: unknown): StepReply {
  const r = reply as (number | string)[];
  const used = (v: unknown) => (Array.isArray(v) ? v.map(Number) : []);
  switch (Number(r[0])) {
    case 0:
      return {
        kind: 'refused',
        code: String(r[1]),
        nextSlotFreeAt: Number(r[2]) < 0 ? null : Number(r[2]),
        used: used(r[3]),
      };
    case 1:
      return {
        kind: 'admitted',
        billed: Number(r[1]) === 1,
        charged: Number(r[2]),
        used: used(r[3]),
        free: Number(r[4]) === 1,
        freeUnits: Number(r[5] ?? 0),
      };
    case 2:
      return { kind: 'needs-wallet' };
    case 4:
      return { kind: 'not-ready' };
    case 3:
      return { kind: 'duplicate' };
    default:
      throw new Error(`admission script: unexpected reply ${JSON.stringify(reply)}`);
  }
}

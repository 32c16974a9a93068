/**
 * Plans of several units on Redis (types.ts `Store.admit`): their ticket when one script admits them all, and the
 * cluster path when their keys span shards, each step one script for all its units (docs/shared-state.md).
 */
import { tightestQuota } from '../quota';
import type { AdmissionPlan, AdmissionResult, CounterSpec, SlotSpec, Ticket } from '../types';
import { unitId } from '../units';
import { shardOf } from './layout';
import { groupsByShard, runsByShard, see, tailShard, type CounterGroup, type Seen } from './plan-shards';
import { stepMarks, type MarkRef, type SharedUndo, type StepInput, type StepReply } from './step';

type Refusal = Extract<AdmissionResult, { admitted: false }>;

/** What the cluster path of units asks of the admitter (admission.ts `Admitter`). */
export interface StepRunner {
  /** Run one step; a fault leaves `done` and the step's own marks to the background release. */
  runStep(plan: AdmissionPlan, s: StepInput, done: MarkRef[]): Promise<StepReply>;
  /** Give marks back (Redis down: in the background). */
  compensate(planId: string, marks: readonly MarkRef[]): Promise<void>;
  /** A step's refusal as the plan's. */
  refusal(r: StepReply, quota: Refusal['quota']): Refusal;
  /** The tightest counter's quota, reading what `seen` lacks. */
  quotaOf(plan: AdmissionPlan, seen: Seen): Promise<Refusal['quota']>;
  /** A ticket holding `marks`. */
  ticket(plan: AdmissionPlan, marks: MarkRef[]): Ticket;
}

/**
 * The ticket of a plan of several units admitted in one step: its own mark (the slot changes) and each unit's, so
 * settling it settles every unit not settled yet; `units` holds one ticket per unit, settled on its own (D11).
 */
export function unitsTicket(planId: string, n: number, shard: number): Ticket {
  const marks: MarkRef[] = [[shard, 0]];
  const units: Ticket[] = [];
  for (let i = 0; i < n; i++) {
    const id = unitId(planId, i);
    marks.push([shard, 0, id]);
    const undo: SharedUndo = { v: 'shared-1', marks: [[shard, 0]] };
    units.push({ planId: id, undo });
  }
  const undo: SharedUndo = { v: 'shared-1', marks };
  return { planId, undo, units };
}

/** A cluster plan of units on its way: the marks its steps took, and the step under way (its outcome unknown). */
interface Track {
  done: MarkRef[];
  current: StepInput | null;
}

/** The overflow of a step that only takes slots or reserves counters. */
const FREE: AdmissionPlan['overflow'] = Object.freeze({ kind: 'free' });

/**
 * A plan of several units over several cluster shards, in the order of a one-unit plan (docs/shared-state.md):
 * slot steps; then, when the counters and the wallet share a shard, the rest in one step there; else each counter
 * group reserves as many units as it can (at most as many as the group before it), the groups before the last give
 * back what they took beyond it, and the remaining units overflow in one step (billed in the account's shard).
 * Every step is one script for all its units; a refusal gives back every step before it (D10).
 */
export async function admitUnitsStepwise(
  a: StepRunner,
  plan: AdmissionPlan,
  n: number,
): Promise<AdmissionResult> {
  const track: Track = { done: [], current: null };
  try {
    return await unitSteps(a, plan, n, track);
  } catch (err) {
    // A fault changes nothing either: what the steps took (and the step whose outcome is unknown) is given back,
    // now or once Redis answers (a superset of what runStep left for later: releasing a mark twice is a no-op).
    const marks = track.current ? [...track.done, ...stepMarks(plan.id, track.current)] : track.done;
    if (marks.length > 0) await a.compensate(plan.id, marks).catch(() => undefined);
    throw err;
  }
}

async function unitSteps(
  a: StepRunner,
  plan: AdmissionPlan,
  n: number,
  track: Track,
): Promise<AdmissionResult> {
  const done = track.done;
  const run = async (s: StepInput): Promise<StepReply> => {
    track.current = s;
    const r = await a.runStep(plan, s, done);
    track.current = null;
    return r;
  };
  let step = 0;
  const refused = async (r: StepReply): Promise<Refusal> => {
    await a.compensate(plan.id, done.splice(0));
    return a.refusal(r, await a.quotaOf(plan, []));
  };
  const tail = tailShard(plan);
  let split = plan.slots.length;
  if (tail !== null) while (split > 0 && shardOf(plan.slots[split - 1]?.scope ?? '') === tail) split -= 1;
  const runs = runsByShard<SlotSpec>(plan.slots.slice(0, split), (sl) => shardOf(sl.scope));
  const groups = tail === null ? groupsByShard(plan.free) : [];
  const merged =
    runs.length > 0 && runs[runs.length - 1]?.shard === groups[0]?.shard ? runs.pop() : undefined;
  const base = { counters: [] as CounterSpec[], notFree: false, overflow: FREE, event: false };
  for (const slotRun of runs) {
    const r = await run({ ...base, shard: slotRun.shard, step, slots: slotRun.items });
    if (r.kind !== 'admitted') return refused(r);
    done.push([slotRun.shard, step++]);
  }
  if (tail !== null) {
    const s: StepInput = {
      shard: tail,
      step,
      slots: plan.slots.slice(split),
      counters: plan.free,
      notFree: false,
      overflow: plan.overflow,
      event: true,
      units: n,
    };
    const r = await run(s);
    if (r.kind !== 'admitted') return refused(r);
    done.push(...stepMarks(plan.id, s));
    return unitsAdmitted(a, plan, n, done, r.billed, r.charged, tightestQuota(plan.free, r.used));
  }
  if (groups.length === 0) {
    // Vacuously free: one step records the units' usage.
    const s: StepInput = { ...base, shard: shardOf(plan.slots[0]?.scope ?? plan.id), step, slots: [] };
    const r = await run({ ...s, event: true, units: n });
    if (r.kind !== 'admitted') throw new Error('admission: a record step was refused');
    done.push(...stepMarks(plan.id, { ...s, units: n }));
    return unitsAdmitted(a, plan, n, done, false, 0, null);
  }
  // The counter groups: each reserves up to `free` units; the last group's reservation is the free units.
  let free = n;
  const seen: Seen = plan.free.map(() => undefined);
  const taken: { shard: number; step: number; units: number; g: CounterGroup }[] = [];
  for (const [i, g] of groups.entries()) {
    if (free === 0 && i > 0) break; // nothing left to reserve: the rest overflows
    const s: StepInput = {
      shard: g.shard,
      step,
      slots: i === 0 ? (merged?.items ?? []) : [],
      counters: g.items,
      notFree: false,
      overflow: FREE,
      event: i === groups.length - 1,
      units: free,
      partial: true,
    };
    const r = await run(s);
    if (r.kind !== 'admitted') return refused(r); // a slot of the first group's step
    see(seen, g, r.used);
    done.push(...stepMarks(plan.id, s, r.freeUnits));
    taken.push({ shard: g.shard, step: step++, units: r.freeUnits, g });
    free = r.freeUnits;
  }
  // The groups before the last give back the units the last could not reserve (their values as after the plan).
  const extra: MarkRef[] = [];
  for (const t of taken) {
    for (let u = free; u < t.units; u++) extra.push([t.shard, t.step, unitId(plan.id, u)]);
    for (const at of t.g.at) seen[at] = (seen[at] ?? 0) - (t.units - free);
  }
  if (extra.length > 0) {
    const back = new Set(extra.map(([, st, u]) => `${st}:${u ?? ''}`));
    await a.compensate(plan.id, extra);
    done.splice(0, done.length, ...done.filter(([, st, u]) => !back.has(`${st}:${u ?? ''}`)));
  }
  if (free === n)
    return unitsAdmitted(a, plan, n, done, false, 0, tightestQuota(plan.free, seen as number[]));
  const o = plan.overflow;
  if (o.kind === 'refuse') {
    await a.compensate(plan.id, done.splice(0));
    return { admitted: false, code: o.code, quota: await a.quotaOf(plan, []) };
  }
  const shard =
    o.kind === 'bill' ? shardOf(`account:${o.accountId}`) : shardOf(plan.slots[0]?.scope ?? plan.id);
  const s: StepInput = {
    shard,
    step,
    slots: [],
    counters: [],
    notFree: true,
    overflow: o,
    event: true,
    units: n - free,
    firstUnit: free,
  };
  const r = await run(s);
  if (r.kind !== 'admitted') return refused(r);
  done.push(...stepMarks(plan.id, s));
  return unitsAdmitted(a, plan, n, done, r.billed, r.charged, await a.quotaOf(plan, seen));
}

/** The result of an admitted plan of units: the plan's ticket holds every mark, each unit's ticket its own. */
function unitsAdmitted(
  a: StepRunner,
  plan: AdmissionPlan,
  n: number,
  marks: MarkRef[],
  billed: boolean,
  charged: number,
  quota: AdmissionResult['quota'],
): AdmissionResult {
  const units: Ticket[] = [];
  for (let i = 0; i < n; i++) {
    const id = unitId(plan.id, i);
    const own = marks.filter((m) => m[2] === id).map(([sh, st]): MarkRef => [sh, st]);
    const undo: SharedUndo = { v: 'shared-1', marks: own };
    units.push({ planId: id, undo });
  }
  return { admitted: true, billed, charged, quota, ticket: { ...a.ticket(plan, marks), units } };
}

/**
 * A plan of one unit on a Redis Cluster whose keys span shards (admission.ts): slots, then the free counters shard by
 * shard, then the overflow, each step atomic in its shard; a later refusal gives the earlier steps back through their
 * marks (docs/shared-state.md, reserve-then-compensate).
 */
import { tightestQuota } from '../quota';
import type { AdmissionPlan, AdmissionResult, CounterSpec, SlotSpec } from '../types';
import type { StepRunner } from './admission-units';
import { shardOf } from './layout';
import { groupsByShard, runsByShard, see, tailShard, usedOf, type Seen } from './plan-shards';
import type { MarkRef, StepInput } from './step';

type Refusal = Extract<AdmissionResult, { admitted: false }>;

/** Cluster, several shards: slots → free counters → overflow, compensating on a later refusal. */
export async function admitStepwise(runner: StepRunner, plan: AdmissionPlan): Promise<AdmissionResult> {
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
    const r = await runner.runStep(
      plan,
      { ...base, shard: run.shard, step: done.length, slots: run.items },
      done,
    );
    if (r.kind !== 'admitted') {
      await runner.compensate(plan.id, done);
      return runner.refusal(r, await runner.quotaOf(plan, []));
    }
    done.push([run.shard, done.length]);
  }
  if (tail !== null) return tailStep(runner, plan, tail, plan.slots.slice(split), done);
  const seen: Seen = plan.free.map(() => undefined);
  const free = await reserveCounters(runner, plan, done, merged?.items ?? [], seen);
  if (free.refusal) return free.refusal;
  if (free.ok) {
    return {
      admitted: true,
      billed: false,
      charged: 0,
      quota: tightestQuota(plan.free, seen as number[]),
      ticket: runner.ticket(plan, done),
    };
  }
  return overflowStep(runner, plan, done, seen);
}

/** The rest of a plan in one shard, with the plan's full rules (one atomic step). */
async function tailStep(
  runner: StepRunner,
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
  const r = await runner.runStep(plan, step, done);
  if (r.kind !== 'admitted') {
    await runner.compensate(plan.id, done);
    return runner.refusal(r, tightestQuota(plan.free, usedOf(r)));
  }
  done.push([shard, done.length]);
  return {
    admitted: true,
    billed: r.billed,
    charged: r.charged,
    quota: tightestQuota(plan.free, r.used),
    ticket: runner.ticket(plan, done),
  };
}

/**
 * Reserve the free counters shard by shard (each reserve increments only when all its counters are below their
 * limits). The last group writes the event. When a group is full, the groups reserved before are released.
 * Every group's values go to `seen` (as after this request: without a released reservation).
 */
async function reserveCounters(
  runner: StepRunner,
  plan: AdmissionPlan,
  done: MarkRef[],
  slots: SlotSpec[],
  seen: Seen,
): Promise<{ ok: boolean; refusal?: Refusal }> {
  const groups = groupsByShard(plan.free);
  if (groups.length === 0) {
    // Vacuously free: one step records the usage event.
    const shard = shardOf(plan.slots[0]?.scope ?? plan.id);
    const r = await runner.runStep(plan, eventStep(shard, done.length, false), done);
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
    const r = await runner.runStep(plan, step, done);
    see(seen, g, usedOf(r));
    if (withSlots) {
      if (r.kind !== 'admitted') {
        await runner.compensate(plan.id, done); // a slot refused: nothing of this step was applied
        return { ok: false, refusal: runner.refusal(r, await runner.quotaOf(plan, seen)) };
      }
      done.push([g.shard, step.step]);
      reservedFrom = done.length;
      if (!r.free) return { ok: false };
      done.push([g.shard, step.step + 1]);
      continue;
    }
    if (r.kind !== 'admitted') {
      const reserved = done.splice(reservedFrom);
      await runner.compensate(plan.id, reserved);
      // The groups before this one were reserved and just released: report their values without this request.
      for (const before of groups.slice(0, i)) for (const at of before.at) seen[at] = (seen[at] ?? 1) - 1;
      return { ok: false };
    }
    done.push([g.shard, done.length]);
  }
  return { ok: true };
}

function eventStep(shard: number, step: number, notFree: boolean): StepInput {
  return { shard, step, slots: [], counters: [], notFree, overflow: { kind: 'free' }, event: true };
}

/** Not free on a cluster: refuse, serve free (Unlimited), or bill in the account's shard. */
async function overflowStep(
  runner: StepRunner,
  plan: AdmissionPlan,
  done: MarkRef[],
  seen: Seen,
): Promise<AdmissionResult> {
  const o = plan.overflow;
  if (o.kind === 'refuse') {
    await runner.compensate(plan.id, done);
    return { admitted: false, code: o.code, quota: await runner.quotaOf(plan, seen) };
  }
  const shard =
    o.kind === 'bill' ? shardOf(`account:${o.accountId}`) : shardOf(plan.slots[0]?.scope ?? plan.id);
  const step = { ...eventStep(shard, done.length, true), overflow: o };
  // The counters not seen yet (after the full group) are read alongside the overflow step: one round trip.
  const read = runner.quotaOf(plan, seen).then(
    (q) => ({ q }),
    (fault: unknown) => ({ fault }),
  );
  const r = await runner.runStep(plan, step, done);
  const quota = await read;
  if (r.kind === 'admitted') done.push([shard, done.length]);
  if ('fault' in quota) {
    await runner.compensate(plan.id, done); // a fault changes nothing either: give the whole admission back
    throw quota.fault;
  }
  if (r.kind !== 'admitted') {
    await runner.compensate(plan.id, done);
    return runner.refusal(r, quota.q);
  }
  return {
    admitted: true,
    billed: r.billed,
    charged: r.charged,
    quota: quota.q,
    ticket: runner.ticket(plan, done),
  };
}

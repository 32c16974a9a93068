/** How a plan's keys fall into shards (layout.ts): the cluster path of the admission steps by shard. */
import type { AdmissionPlan, CounterSpec } from '../types';
import { shardOf } from './layout';
import type { StepReply } from './step';

/** The one shard holding every free counter and the wallet to bill (null when they are spread or absent). */
export function tailShard(plan: AdmissionPlan): number | null {
  const shards = new Set(plan.free.map((c) => shardOf(c.id)));
  if (plan.overflow.kind === 'bill') shards.add(shardOf(`account:${plan.overflow.accountId}`));
  return shards.size === 1 ? ([...shards][0] ?? null) : null;
}

/** Consecutive items with the same shard, in order. */
export function runsByShard<T>(
  items: readonly T[],
  shard: (t: T) => number,
): { shard: number; items: T[] }[] {
  const runs: { shard: number; items: T[] }[] = [];
  for (const it of items) {
    const s = shard(it);
    const last = runs[runs.length - 1];
    if (last && last.shard === s) last.items.push(it);
    else runs.push({ shard: s, items: [it] });
  }
  return runs;
}

/** A shard's counters and their indices in the plan's `free`. */
export interface CounterGroup {
  shard: number;
  items: CounterSpec[];
  at: number[];
}

/** Counters grouped by shard, groups in order of first appearance (so free[0] is in the first group). */
export function groupsByShard(counters: readonly CounterSpec[]): CounterGroup[] {
  const map = new Map<number, CounterGroup>();
  for (const [i, c] of counters.entries()) {
    const s = shardOf(c.id);
    const g = map.get(s) ?? { shard: s, items: [], at: [] };
    g.items.push(c);
    g.at.push(i);
    map.set(s, g);
  }
  return [...map.values()];
}

/**
 * The used values of a plan's counters as the cluster path learns them step by step (undefined: not seen yet).
 * The reported quota is the tightest counter of all (types.ts); unseen counters are read before reporting.
 */
export type Seen = (number | undefined)[];

/** A step reply's counter values (none unless admitted or refused). */
export function usedOf(r: StepReply): number[] {
  return r.kind === 'admitted' || r.kind === 'refused' ? r.used : [];
}

/** Record a step's counter values (reply order = group order). */
export function see(seen: Seen, g: CounterGroup, used: readonly number[]): void {
  g.at.forEach((at, j) => (seen[at] = used[j]));
}

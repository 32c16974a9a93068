/**
 * Plans of several units (types.ts `AdmissionPlan.units`, `Store.admit`): the arithmetic both stores share. Unit i
 * is free while every counter is below its limit after the free units before it; a free unit increments every
 * counter (D5), so the free units are the fewest any counter has left, at most n.
 */
import type { AdmissionPlan, CounterSpec } from './types';

/** The plan's unit count, checked (a bad count is a bug, not a refusal): 1 when absent. */
export function unitsOf(plan: AdmissionPlan): number {
  const n = plan.units;
  if (n === undefined) return 1;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`admission plan ${plan.id}: units must be a positive integer`);
  }
  return n;
}

/** How many of `n` units are free given the counters' `used` values (n when the plan has no counter). */
export function freeUnits(free: readonly CounterSpec[], used: readonly number[], n: number): number {
  let units = n;
  for (const [i, c] of free.entries()) units = Math.min(units, Math.max(0, c.limit - (used[i] ?? 0)));
  return units;
}

/** The id of unit `i` of a plan of several units: its ticket's planId and its ledger ref. */
export function unitId(planId: string, i: number): string {
  return `${planId}/${i}`;
}

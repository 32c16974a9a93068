/** The quota an admission reports (types.ts `AdmissionResult.quota`): the free counter closest to its limit. */
import type { CounterSpec } from './types';

/** Used and limit of one daily free counter. */
export interface CounterQuota {
  used: number;
  limit: number;
}

/**
 * The counter with the fewest remaining (limit − used, `used` as after this request); ties → the first in plan
 * order; null without counters. With D5's two counters (key and network) this is what the caller has left.
 */
export function tightestQuota(free: readonly CounterSpec[], used: readonly number[]): CounterQuota | null {
  let best: CounterQuota | null = null;
  for (const [i, c] of free.entries()) {
    const q = { used: used[i] ?? 0, limit: c.limit };
    if (!best || q.limit - q.used < best.limit - best.used) best = q;
  }
  return best;
}

/**
 * What a kill -9 of a lease holder (D33, D34) leaves, for the crash tests of the shared store: its leases stay in the
 * wallet until they expire (`ttlMs` after its last flush) and a reclaim (any script on the wallet, or the background
 * reclaim of a live instance) takes them back, refunding the charges of admissions it never settled.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { Layout } from '../../../gateway/store/shared/layout';

/** The lease fields ("h:<holder>") in an account's wallet hash. */
export async function leaseFields(redisUrl: string, prefix: string, accountId: string): Promise<string[]> {
  const r = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await r.connect();
    const fields = await r.hkeys(new Layout(prefix).wallet(accountId));
    return fields.filter((f) => f.startsWith('h:'));
  } finally {
    r.disconnect();
  }
}

/** Poll until the wallet holds no lease (reclaimed or returned); the milliseconds that took. Throws after `limitMs`. */
export async function untilNoLease(
  redisUrl: string,
  prefix: string,
  accountId: string,
  limitMs = 20_000,
): Promise<number> {
  const start = performance.now();
  while ((await leaseFields(redisUrl, prefix, accountId)).length > 0) {
    if (performance.now() - start > limitMs)
      throw new Error(`a lease still in the wallet after ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return performance.now() - start;
}

/**
 * D34's bound on the shared store (kept units are posted by the holder's flush, every `flushMs` = 250 ms): answers
 * of the killed holder received in the last `windowMs` before the kill may be uncharged. The window is four flush
 * intervals, for a loaded machine's late timers.
 */
export const UNFLUSHED_WINDOW_MS = 1_000;

/** How many of `times` (performance.now() of answers) are in the window before `killedAt`, or later. */
export function answeredSince(
  times: readonly number[],
  killedAt: number,
  windowMs = UNFLUSHED_WINDOW_MS,
): number {
  return times.filter((t) => t >= killedAt - windowMs).length;
}

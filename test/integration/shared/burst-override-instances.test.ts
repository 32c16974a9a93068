/**
 * A key's own burst limit across instances (docs/decisions.md, "Burst limits"): two real gateway processes on one
 * shared store (PostgreSQL + Redis prefix). The admin API of instance 1 sets the key's own per-second limit; instance 2
 * enforces it within 1 s (its answers name the new limit in RateLimit-Policy, and a burst of requests is refused
 * rate_limited that the deployment's limit admits whole); clearing it on instance 1 returns instance 2 to the
 * deployment's limit within 1 s.
 *
 * Instance 2 caches key identities (with their limits) for 5 s; each change is seen less than 5 s after instance 2
 * last filled its cache with the key (at the earliest), so only the store's invalidation can explain it.
 */
import { Redis } from 'ioredis';
import { call, type Answer } from '../../helpers/gateway-harness';
import { LOCAL_REDIS_URL } from '../../helpers/redis-server';
import { useBurstPair, REVERSE } from './burst-pair';
import { describeShared } from './fixture';

jest.setTimeout(120_000);

/** The deployment's per-second key limit: each instance's share (25) admits a burst of BURST whole. */
const DEPLOYMENT = 50;
/** The key's own per-second limit: each instance's share (1 or 2) refuses most of a burst of BURST. */
const OWN = 3;
const BURST = 10;
/** The identity cache's lifetime of a gateway process (the shared store's default). */
const CACHE_MS = 5_000;

/** The per-second limit an answer says applies (its RateLimit-Policy "burst" item's q). */
function perSecondOf(r: Answer): number | null {
  const m = /"burst";q=(\d+);w=1/.exec(String(r.headers['ratelimit-policy'] ?? ''));
  return m ? Number(m[1]) : null;
}

describeShared('a key’s own burst limit set on one instance, enforced by another', () => {
  const startPair = useBurstPair();

  it(`instance 2 applies a limit set through instance 1's admin API within 1 s, and the deployment's once cleared`, async () => {
    const { admin, auth, key, keyId, mains, prefix } = await startPair(DEPLOYMENT, 'burstown');
    const main2 = mains[1];
    const ask = () => call(main2, REVERSE, { headers: { 'x-api-key': key } });
    const burst = () => Promise.all(Array.from({ length: BURST }, ask));

    // Both processes count as peers (so each enforces its share) before anything is measured.
    const redis = new Redis(LOCAL_REDIS_URL);
    const deadline = Date.now() + 10_000;
    while ((await redis.zrange(`${prefix}burst:peers`, 0, -1)).length < 2 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    const peers = await redis.zrange(`${prefix}burst:peers`, 0, -1);
    await redis.quit();
    expect(peers).toHaveLength(2);

    /** Put the key's burst limits on instance 1; resolves when the admin API answered. */
    const put = async (body: Record<string, number | null>) => {
      const r = await call(admin, `/admin/keys/${keyId}/burst`, {
        method: 'PUT',
        headers: auth,
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(200);
      return r;
    };
    /** Ask instance 2 one request at a time (under its share of either limit) until it names `limit`; ms taken. */
    const seen = async (limit: number, since: number): Promise<number> => {
      for (;;) {
        const r = await ask();
        // Under the key's own limit a poll in the second of a burst is refused; its answer names the limit too.
        expect(r.status === 200 || r.json?.code === 'rate_limited').toBe(true);
        if (perSecondOf(r) === limit) return Date.now() - since;
        if (Date.now() - since > 3_000)
          throw new Error(`instance 2 still names ${perSecondOf(r)}, not ${limit}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    };

    // The deployment's limit on instance 2: a burst is admitted whole. Its cache now holds the key (filled here).
    const filled = Date.now();
    const before = await burst();
    expect(before.map((r) => r.status)).toEqual(Array(BURST).fill(200));
    expect(before.map(perSecondOf)).toEqual(Array(BURST).fill(DEPLOYMENT));

    const setAt = Date.now();
    const set = await put({ perSecond: OWN, perMinute: null });
    expect(set.json).toEqual({ perSecond: OWN, perMinute: null });
    const setDone = Date.now();
    const setLag = await seen(OWN, setDone);
    expect(setLag).toBeLessThan(1_000);
    // The key entered instance 2's cache at `filled` or later: its lifetime had not run out.
    expect(setDone + setLag - filled).toBeLessThan(CACHE_MS);
    // Enforced, not only named: instance 2 refuses most of a burst its share of the key's limit cannot hold.
    const limited = await burst();
    expect(limited.every((r) => r.status === 200 || r.json?.code === 'rate_limited')).toBe(true);
    expect(limited.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(1);
    expect(limited.filter((r) => r.status === 429).every((r) => perSecondOf(r) === OWN)).toBe(true);

    // Cleared on instance 1: instance 2 is back on the deployment's limit.
    await new Promise((r) => setTimeout(r, 1_100)); // the burst's second is over
    const clearAt = Date.now();
    const cleared = await put({ perSecond: null, perMinute: null });
    expect(cleared.json).toEqual({ perSecond: null, perMinute: null });
    const clearDone = Date.now();
    const clearLag = await seen(DEPLOYMENT, clearDone);
    expect(clearLag).toBeLessThan(1_000);
    // Instance 2 refilled its cache after the set's invalidation, so at `setAt` or later.
    expect(clearDone + clearLag - setAt).toBeLessThan(CACHE_MS);
    await new Promise((r) => setTimeout(r, 1_100)); // a fresh second for the burst
    const after = await burst();
    expect(after.map((r) => r.status)).toEqual(Array(BURST).fill(200));
    expect(after.map(perSecondOf)).toEqual(Array(BURST).fill(DEPLOYMENT));
    if (process.env.GG_VERBOSE)
      console.log(
        `set: PUT ${setDone - setAt} ms, seen by instance 2 ${setLag} ms later; ` +
          `clear: PUT ${clearDone - clearAt} ms, seen ${clearLag} ms later`,
      );
  });
});

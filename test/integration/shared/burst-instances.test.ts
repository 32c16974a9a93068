/**
 * Burst limits across instances (docs/decisions.md, "Burst limits"): two real gateway processes on one shared store
 * (PostgreSQL + Redis), each enforcing its share of the limit learned from the store's peer heartbeat, under even
 * load well above the limit. Every UTC second the two together admit within 10 % of the per-second limit and never
 * more than 1.1x it.
 *
 * A request is attributed to the UTC second it was decided in, read from its answer: the limits also hold a per-minute
 * window far above what the per-second limit lets through, so every answer (admitted or refused) carries that
 * window's RateLimit item, whose `t` is the seconds left in the minute at the decision (second = 60 − t); the minute
 * is the send time's (answers here take seconds on a loaded machine, never 30). Per second: admitted ≤ 1.1 × limit
 * always; and where both instances refused a request in that second (each had used its share: demand above it),
 * admitted ≥ 0.9 × limit.
 */
import { call, type Answer } from '../../helpers/gateway-harness';
import { LOCAL_REDIS_URL } from '../../helpers/redis-server';
import { useBurstPair, REVERSE } from './burst-pair';
import { describeShared } from './fixture';
import { Redis } from 'ioredis';

jest.setTimeout(180_000);

const LIMIT = 30;
const SECONDS = 6;
/** Requests per second offered, over both instances (over 3x the limit). */
const RATE = 100;

interface Stamped {
  status: number;
  code: string | null;
  instance: number;
  /** The UTC second (epoch seconds) the gateway decided the request in. */
  decided: number;
}

/** The decision second of an answer from its "burst-minute" RateLimit item and the send time's minute. */
function decidedSecond(r: Answer, sent: number): number {
  const m = /"burst-minute";r=\d+;t=(\d+)/.exec(String(r.headers['ratelimit'] ?? ''));
  if (!m) throw new Error(`no burst-minute item in ${String(r.headers['ratelimit'])} (status ${r.status})`);
  const inMinute = 60 - Number(m[1]);
  // The decision is after the send and at most 30 s later: the minute that puts it there.
  const base = Math.floor(sent / 60_000) * 60;
  const sentS = Math.floor(sent / 1000);
  return base + inMinute >= sentS ? base + inMinute : base + 60 + inMinute;
}

describeShared('burst limits over two gateway processes on one shared store', () => {
  const startPair = useBurstPair();

  it(`admits ${LIMIT}/s ± 10 % in every second under even load, never above 1.1x`, async () => {
    const { key, mains, prefix } = await startPair(LIMIT, 'burst');
    // Both processes have seen each other's heartbeat (one per second) before the load starts.
    await new Promise((r) => setTimeout(r, 2_500));
    const redis = new Redis(LOCAL_REDIS_URL);
    const peers = await redis.zrange(`${prefix}burst:peers`, 0, -1);
    await redis.quit();
    expect(peers).toHaveLength(2);

    // Even load: RATE requests per second, alternating between the instances.
    const stamped: Stamped[] = [];
    const pending: Promise<void>[] = [];
    const start = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    await new Promise((r) => setTimeout(r, start - Date.now() - 200));
    const end = start + SECONDS * 1000 + 200;
    // Paced by the clock, not by timers (a loaded machine delays them): each tick sends what the rate owes.
    const t0 = Date.now();
    let i = 0;
    while (Date.now() < end) {
      const owed = Math.floor(((Date.now() - t0) * RATE) / 1000);
      for (; i < owed; i++) {
        const sent = Date.now();
        pending.push(
          call(mains[i % 2] as string, REVERSE, { headers: { 'x-api-key': key } }).then((r: Answer) => {
            stamped.push({
              status: r.status,
              code: (r.json?.code as string | undefined) ?? null,
              instance: i % 2,
              decided: decidedSecond(r, sent),
            });
          }),
        );
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(pending);
    expect(stamped.every((s) => s.status === 200 || s.code === 'rate_limited')).toBe(true);

    const report: string[] = [];
    const checks: (() => void)[] = [];
    const seconds = [...new Set(stamped.map((x) => x.decided))].sort((x, y) => x - y);
    let full = 0;
    for (const sec of seconds) {
      const here = stamped.filter((x) => x.decided === sec);
      const admitted = here.filter((x) => x.status === 200).length;
      const refusedBy = [0, 1].map((n) => here.filter((x) => x.status === 429 && x.instance === n).length);
      const saturated = refusedBy.every((n) => n > 0);
      if (saturated) full++;
      report.push(
        `${new Date(sec * 1000).toISOString()}: admitted ${admitted}, refused ${refusedBy.join(' + ')}`,
      );
      checks.push(() => {
        expect(admitted).toBeLessThanOrEqual(Math.floor(LIMIT * 1.1));
        if (saturated) expect(admitted).toBeGreaterThanOrEqual(Math.ceil(LIMIT * 0.9));
      });
    }
    console.log(report.join('\n'));
    for (const check of checks) check();
    // The lower bound was tested: both instances were above their share in several seconds (on a loaded machine the
    // requests reach the two instances unevenly in some seconds, though they are sent alternately).
    expect(full).toBeGreaterThanOrEqual(2);
    // Every request of the run was decided in a second that admitted at most 1.1 × limit: no second was missed.
    expect(stamped.filter((x) => x.status === 200).length).toBeLessThanOrEqual(seconds.length * LIMIT * 1.1);
  });
});

/**
 * Issue 13 item 3: Redis memory is O(keys and addresses), not O(requests). N billed-or-free admissions from
 * 100 identities (each kept, as the gateway's settle stage does for an answer) on a private redis-server leave at
 * most 64 bytes per admitted request once drained (before: ≈ 613 bytes each for 48 h). For comparison the same
 * admissions never kept leave their release marks (1 h TTL backstop), logged with GG_VERBOSE=1. Measured twice: with
 * credit leases (the default) and on the owner's script path (leases: false), which alone leaves per-request records
 * when admissions are not kept (the sanity check).
 * The suite runs 20,000 (the private server fsyncs every write); docs/bench-history/2026-11-24-faults-limits-pipeline-metrics.md reports GG_MEMORY_REQUESTS=100000.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { SharedStore } from '../../gateway/store/shared';
import type { AdmissionPlan } from '../../gateway/store/types';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server';
import { describeShared, sharedEnv, type SharedEnv } from '../integration/shared/harness';

jest.setTimeout(300_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const DAY = '2026-11-22';
const IDENTITIES = 100;
const REQUESTS = Number(process.env.GG_MEMORY_REQUESTS ?? 20_000);
const CONCURRENCY = 32;

/** Identity `i`'s plan: its key's slot, its free counter (then billed), its usage. */
function planFor(accountId: string, i: number, run: string, n: number): AdmissionPlan {
  const key = `key_mem${i}`;
  return {
    id: `adm_${run}_${n}`,
    now: T0 + n,
    day: DAY,
    slots: [
      {
        scope: `key:${key}`,
        member: `198.51.100.${i + 1}`,
        capacity: 2,
        mode: 'fixed',
        windowMs: 86_400_000,
        refuse: 'key_ip_limit',
      },
    ],
    free: [{ id: `key:${key}`, limit: 200 }],
    overflow: { kind: 'bill', accountId, price: 1, refuse: 'no_credits' },
    usage: [`key:${key}`],
    keyId: key,
  };
}

/** Admit `count` plans with CONCURRENCY loops, keeping each when `keep`; admissions per second. */
async function admitMany(
  store: SharedStore,
  accountId: string,
  count: number,
  keep: boolean,
): Promise<number> {
  const run = randomBytes(4).toString('hex');
  let next = 0;
  const t = performance.now();
  const loop = async () => {
    while (next < count) {
      const n = next++;
      const r = await store.admit(planFor(accountId, n % IDENTITIES, run, n));
      if (!r.admitted) throw new Error(`refused: ${r.code}`);
      if (keep) await store.keep(r.ticket);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return Math.round(count / ((performance.now() - t) / 1000));
}

/** Redis's used_memory after the drain wrote every event to PostgreSQL (and deleted it from the streams). */
async function settledMemory(store: SharedStore): Promise<number> {
  await store.leases?.flush(); // a holder's kept units reach the stream at its next flush
  await store.drain.flush();
  const info = await store.redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

/** Bytes per kept admission once drained (and, with `unkept`, per admission never kept) on a fresh account. */
async function measure(store: SharedStore, leases: boolean) {
  expect(store.leases !== null).toBe(leases);
  const acc = await store.createAccount({ email: `memory-${leases ? 'lease' : 'owner'}@example.org` }, T0);
  await store.credit(acc.id, 10_000_000, 'start', T0);
  await admitMany(store, acc.id, 2 * IDENTITIES, true); // every identity's keys exist
  const before = await settledMemory(store);
  const rate = await admitMany(store, acc.id, REQUESTS, true);
  const after = await settledMemory(store);
  const perRequest = (after - before) / REQUESTS;
  let unkeptPerRequest = NaN;
  if (!leases) {
    const unkept = Math.min(REQUESTS, 10_000);
    await admitMany(store, acc.id, unkept, false);
    unkeptPerRequest = ((await settledMemory(store)) - after) / unkept;
  }
  await store.close(); // its leases back, its timers stopped: the next measure sees only its own records
  return { rate, before, after, perRequest, unkeptPerRequest };
}

describeShared(
  'faults: Redis memory per admitted request (private redis-server)',
  () => {
    let redis: PrivateRedis;
    let env: SharedEnv;
    beforeAll(async () => {
      redis = await startPrivateRedis();
      env = await sharedEnv(redis.url, 'mem');
    });
    afterAll(async () => {
      await env?.cleanup();
      await redis?.destroy();
    });

    it(`${REQUESTS} kept admissions from ${IDENTITIES} identities leave ≤ 64 bytes each`, async () => {
      // With credit leases (the default): the free units and first sights go to the owner's script, the billed ones
      // are decided from a lease and posted per flush.
      const leased = await measure(await env.open(), true);
      // The owner's script path, where each admission writes to Redis (leases: false): its records are deleted when
      // the admission is kept; unkept, they stay (the sanity check: the measure sees per-request records when they
      // exist, which unkept lease admissions do not leave).
      const owner = await measure(await env.open({ leases: false }), false);
      if (process.env.GG_VERBOSE) console.log({ requests: REQUESTS, leased, owner });

      expect(leased.perRequest).toBeLessThanOrEqual(64);
      expect(owner.perRequest).toBeLessThanOrEqual(64);
      expect(owner.unkeptPerRequest).toBeGreaterThan(64);
    });
  },
  ['redis-server'],
);

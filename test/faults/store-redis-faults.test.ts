/**
 * Issue 13 items 2 and 4 (Redis side): every way a private redis-server cannot serve is a StoreUnavailableError
 * (503 store_unavailable, or uncounted service under onStoreFailure: open) within 5 s, never a bug (500):
 * out of memory under noeviction, a read-only replica, a stalled server (SIGSTOP), a killed server.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { isStoreUnavailable, StoreUnavailableError } from '../../gateway/store/faults';
import type { SharedStore } from '../../gateway/store/shared';
import type { AdmissionPlan } from '../../gateway/store/types';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server';
import { describeShared, sharedEnv, type SharedEnv } from '../integration/shared/harness';

jest.setTimeout(120_000);

const T0 = Date.UTC(2026, 10, 22, 10);

/** A free anonymous-style plan on a fresh counter. */
function freePlan(): AdmissionPlan {
  const id = randomBytes(6).toString('hex');
  return {
    id: `rf-${id}`,
    now: T0,
    day: '2026-11-22',
    slots: [],
    free: [{ id: `network:${id}`, limit: 1_000 }],
    overflow: { kind: 'refuse', code: 'quota_exceeded' },
    usage: [`network:${id}`],
    keyId: null,
  };
}

/** The admission's failure and how long it took to come. */
async function failure(store: SharedStore): Promise<{ err: unknown; ms: number }> {
  const t = performance.now();
  const err = await store.admit(freePlan()).then(
    () => null,
    (e: unknown) => e,
  );
  return { err, ms: performance.now() - t };
}

describeShared(
  'faults: Redis cannot serve (private redis-server)',
  () => {
    let redis: PrivateRedis;
    let env: SharedEnv;
    let admin: Redis;
    beforeAll(async () => {
      redis = await startPrivateRedis();
      env = await sharedEnv(redis.url, 'rfault');
      admin = new Redis(redis.url);
    });
    afterAll(async () => {
      admin?.disconnect();
      await env?.cleanup();
      await redis?.destroy();
    });

    it('out of memory under noeviction → StoreUnavailableError, and admissions resume when memory is back', async () => {
      const store = await env.open();
      expect((await store.admit(freePlan())).admitted).toBe(true);
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await admin.config('SET', 'maxmemory', '1'); // below what is used: every write is refused with OOM
      const { err, ms } = await failure(store);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(String((err as Error).message)).toMatch(/OOM/);
      expect(isStoreUnavailable(err)).toBe(true);
      expect(ms).toBeLessThan(5_000);
      await admin.config('SET', 'maxmemory', '0');
      expect((await store.admit(freePlan())).admitted).toBe(true);
    });

    it('a read-only replica → StoreUnavailableError', async () => {
      const store = await env.open();
      const other = await startPrivateRedis();
      try {
        await admin.replicaof('127.0.0.1', String(other.port));
        const { err, ms } = await failure(store);
        expect(isStoreUnavailable(err)).toBe(true);
        expect(String((err as Error).message)).toMatch(/READONLY|LOADING|MASTERDOWN/);
        expect(ms).toBeLessThan(5_000);
      } finally {
        await admin.replicaof('NO', 'ONE');
        await other.destroy();
      }
      expect((await store.admit(freePlan())).admitted).toBe(true);
    });

    it('a stalled server (SIGSTOP) → StoreUnavailableError within the 2 s command timeout', async () => {
      const store = await env.open();
      expect((await store.admit(freePlan())).admitted).toBe(true);
      redis.pause();
      let result: { err: unknown; ms: number };
      try {
        result = await failure(store);
      } finally {
        redis.resume();
      }
      expect(result.err).toBeInstanceOf(StoreUnavailableError);
      expect(result.ms).toBeLessThan(2_500);
      if (process.env.GG_VERBOSE) console.log({ redisStallAnswerMs: result.ms });
    });

    it('a killed server → StoreUnavailableError at once; readiness says redis: false', async () => {
      const store = await env.open();
      await redis.stop();
      try {
        const { err, ms } = await failure(store);
        expect(err).toBeInstanceOf(StoreUnavailableError);
        expect(ms).toBeLessThan(2_500);
        expect((await store.readiness()).redis).toBe(false);
      } finally {
        await redis.start();
      }
    });
  },
  ['redis-server'],
);

/**
 * Issue 13 item 8: after Redis comes back empty (no AOF left), the daily counters are rebuilt from PostgreSQL's
 * drained history before admissions resume: until then an admission is a StoreUnavailableError (503) and readiness
 * says redis: false; afterwards the allowance already used stays used (before: it was granted again in full).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../gateway/core/clock';
import { StoreUnavailableError } from '../../gateway/store/faults';
import { waitReady } from '../../gateway/store/shared/redis-client';
import type { AdmissionPlan } from '../../gateway/store/types';
import { startPrivateRedis, type PrivateRedis } from '../helpers/redis-server';
import { describeShared, sharedEnv, type SharedEnv } from '../integration/shared/harness';

jest.setTimeout(120_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const LIMIT = 10;

/** A free request of one network (limit LIMIT a day), refused when the allowance is used. */
function networkPlan(network: string): AdmissionPlan {
  return {
    id: `empty-${randomBytes(6).toString('hex')}`,
    now: T0,
    day: '2026-11-22',
    slots: [],
    free: [{ id: network, limit: LIMIT }],
    overflow: { kind: 'refuse', code: 'quota_exceeded' },
    usage: [network],
    keyId: null,
  };
}

describeShared(
  'faults: Redis restarts empty',
  () => {
    let redis: PrivateRedis;
    let env: SharedEnv;
    beforeAll(async () => {
      redis = await startPrivateRedis();
      env = await sharedEnv(redis.url, 'empty');
    });
    afterAll(async () => {
      await env?.cleanup();
      await redis?.destroy();
    });

    it('counters are rebuilt from the drained history before admissions resume; nothing is granted twice', async () => {
      // The rebuild reads the last three days of history by the store's clock: the plans' day (T0), not the wall's.
      const store = await env.open({ clock: new ManualClock(T0) });
      const network = `network:203.0.113.${Math.floor(Math.random() * 250)}/32`;
      for (let i = 0; i < 6; i++) expect((await store.admit(networkPlan(network))).admitted).toBe(true);
      await store.drain.flush(); // the history PostgreSQL holds

      await redis.stop();
      for (const f of readdirSync(redis.dir)) rmSync(join(redis.dir, f), { recursive: true, force: true });
      await redis.start();
      expect((await waitReady(store.redis, 10_000)).ready).toBe(true);

      await expect(store.admit(networkPlan(network))).rejects.toBeInstanceOf(StoreUnavailableError);
      await store.rebuild();
      expect(await store.readiness()).toEqual({ redis: true, postgres: true });
      const after = [];
      for (let i = 0; i < LIMIT; i++) after.push(await store.admit(networkPlan(network)));
      expect(after.filter((r) => r.admitted)).toHaveLength(LIMIT - 6);
      expect(after.at(-1)).toMatchObject({ admitted: false, code: 'quota_exceeded' });
    });

    it('readiness is false while a shard is not rebuilt, and asking starts the rebuild', async () => {
      const store = await env.open();
      await redis.stop();
      for (const f of readdirSync(redis.dir)) rmSync(join(redis.dir, f), { recursive: true, force: true });
      await redis.start();
      expect((await waitReady(store.redis, 10_000)).ready).toBe(true);
      expect((await store.readiness()).redis).toBe(false);
      await store.rebuild();
      expect((await store.readiness()).redis).toBe(true);
    });
  },
  ['redis-server'],
);

/**
 * The set-up of test/integration/shared (canonical for this folder; ./harness.ts and ./gateways.ts re-export it):
 * a throw-away PostgreSQL database, a unique Redis key prefix (on the machine's Redis, a private redis-server or a
 * three-node cluster), a synchronous check that the servers are reachable so a file can skip (outside CI) at load
 * time, and pairs of gateway instances on one shared store. `useSharedEnv` starts and cleans up all of it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { compileConfig, type CompiledConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';
import { ManualClock, utcDay } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { createGateway, type Gateway, type GatewayUrls } from '../../../gateway/server';
import type { AdmissionPlan, ApiKey, KeyKind } from '../../../gateway/store/types';
import { live, useFixture } from '../../helpers/fixture';
import { startRedisCluster, type TestCluster } from '../../helpers/redis-cluster';
import { openSharedStore, type SharedStore, type SharedStoreOptions } from '../../../gateway/store/shared';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database';
import {
  deletePrefix,
  LOCAL_REDIS_URL,
  startPrivateRedis,
  uniquePrefix,
  type PrivateRedis,
} from '../../helpers/redis-server';

/** TCP reachability of 127.0.0.1:5432 and the test Redis, checked synchronously (at module load). */
export function servicesReachable(): { ok: boolean; why: string } {
  const redisPort = Number(new URL(LOCAL_REDIS_URL).port || 6379);
  const probe = `
    const net = require('net');
    const one = (port) => new Promise((res) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); res(true); });
      s.on('error', () => res(false)); s.setTimeout(1500, () => { s.destroy(); res(false); });
    });
    Promise.all([one(5432), one(${redisPort})]).then(([pg, r]) => { process.stdout.write(JSON.stringify({ pg, r })); });
  `;
  const out = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8', timeout: 5_000 });
  const res = JSON.parse(out.stdout || '{"pg":false,"r":false}') as { pg: boolean; r: boolean };
  const why = [!res.pg && 'PostgreSQL 127.0.0.1:5432', !res.r && `Redis ${LOCAL_REDIS_URL}`]
    .filter(Boolean)
    .join(', ');
  if (why && process.env.CI === 'true') throw new Error(`shared store tests need ${why} (CI=true)`);
  return { ok: why === '', why: why ? `unreachable: ${why}` : '' };
}

/** Whether each program runs (`--version`). */
function missingPrograms(programs: readonly string[]): string[] {
  return programs.filter((p) => spawnSync(p, ['--version'], { timeout: 5_000 }).status !== 0);
}

/**
 * `describe`, or a skipped describe with a clear message when the servers are unreachable or a needed program
 * (e.g. redis-server for a private Redis or a cluster) is missing, outside CI; with CI=true it throws instead.
 */
export function describeShared(name: string, fn: () => void, needs: readonly string[] = []): void {
  let s = servicesReachable();
  const missing = missingPrograms(needs);
  if (missing.length > 0) {
    const why = `missing programs: ${missing.join(', ')}`;
    if (process.env.CI === 'true') throw new Error(`${name} needs ${why} (CI=true)`);
    s = { ok: false, why: s.ok ? why : `${s.why}; ${why}` };
  }
  if (s.ok) {
    describe(name, fn);
  } else {
    console.warn(`SKIPPED "${name}": ${s.why}`);
    describe.skip(`${name} (skipped: ${s.why})`, fn);
  }
}

/** One test database shared by the stores of a test file, plus the Redis prefix. */
export interface SharedEnv {
  db: TestDatabase;
  redis: string;
  prefix: string;
  stores: SharedStore[];
  /** Open one more store (another "gateway instance") on the same databases. */
  open(o?: Partial<SharedStoreOptions>): Promise<SharedStore>;
  cleanup(): Promise<void>;
}

/** Create the database; `redis` defaults to the machine's Redis (then its prefix is deleted in cleanup). */
export async function sharedEnv(redis = LOCAL_REDIS_URL, tag = 'shared'): Promise<SharedEnv> {
  const db = await createTestDatabase();
  if (!db) throw new Error('PostgreSQL is not reachable');
  const prefix = uniquePrefix(tag);
  const stores: SharedStore[] = [];
  return {
    db,
    redis,
    prefix,
    stores,
    open: async (o = {}) => {
      const s = await openSharedStore({ postgres: db.url, redis, keyPrefix: prefix, ...o });
      stores.push(s);
      return s;
    },
    cleanup: async () => {
      for (const s of stores) await s.close().catch(() => undefined);
      if (!redis.startsWith('redis+cluster:')) await deletePrefix(redis, prefix).catch(() => undefined);
      await db.drop();
    },
  };
}

/** Which Redis a shared env uses: the machine's (own prefix), a private redis-server, or a three-node cluster. */
export type RedisKind = 'local' | 'private' | 'cluster';

/** A shared env with the Redis it runs on (`redis` only for 'private', `cluster` only for 'cluster'). */
export interface SharedFixture {
  env: SharedEnv;
  redis: PrivateRedis;
  cluster: TestCluster;
}

interface Running {
  env: SharedEnv;
  redis: PrivateRedis | undefined;
  cluster: TestCluster | undefined;
}

/** Starts the Redis of `kind` (if any) and a shared env on it. */
async function startShared(tag: string, kind: RedisKind): Promise<Running> {
  const redis = kind === 'private' ? await startPrivateRedis() : undefined;
  const cluster = kind === 'cluster' ? await startRedisCluster() : undefined;
  try {
    return { env: await sharedEnv(redis?.url ?? cluster?.url ?? LOCAL_REDIS_URL, tag), redis, cluster };
  } catch (err) {
    await redis?.destroy();
    await cluster?.stop();
    throw err;
  }
}

/** Cleans the env up first (a frozen private Redis is resumed), then stops its Redis. */
async function stopShared(r: Running): Promise<void> {
  r.redis?.resume();
  await r.env.cleanup();
  await r.redis?.destroy();
  await r.cluster?.stop();
}

/**
 * A shared env for the enclosing describe block on a Redis of `kind`: started in beforeAll, cleaned up in afterAll.
 * Returns live handles (read them inside tests and hooks).
 */
export function useSharedEnv(tag: string, kind: RedisKind = 'local'): SharedFixture {
  const running = useFixture(`shared env ${tag}`, () => startShared(tag, kind), stopShared);
  const part = <T extends object>(name: string, get: (r: Running) => T | undefined): T =>
    live(() => get(running), `${name} of shared env ${tag}`);
  return {
    env: part('env', (r) => r.env),
    redis: part('private Redis', (r) => r.redis),
    cluster: part('Redis cluster', (r) => r.cluster),
  };
}

export const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/**
 * Poll `probe` every 5 ms until it holds; the milliseconds that took (the propagation tests assert them: D18, D19
 * under 1 s). Throws after `limitMs`, naming `what`. GG_VERBOSE=1 prints each figure.
 */
export async function msUntil(
  probe: () => boolean | Promise<boolean>,
  what = 'the change',
  limitMs = 3_000,
): Promise<number> {
  const start = performance.now();
  while (!(await probe())) {
    if (performance.now() - start > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - start;
  if (process.env.GG_VERBOSE) console.log(`${what}: ${ms.toFixed(1)} ms`);
  return ms;
}

/**
 * A billed plan of `price` on `accountId` at `now`, with a key of its own (so its own usage subject and free counter,
 * limit 0: billed from the first request). `tag` and `i` name it.
 */
export function billedPlan(accountId: string, i: number, tag: string, now: number, price = 1): AdmissionPlan {
  const keyId = `${tag}k${i}${randomBytes(3).toString('hex')}`;
  return {
    id: `${tag}-${i}-${randomBytes(4).toString('hex')}`,
    now,
    day: utcDay(now),
    slots: [],
    free: [{ id: `key:${keyId}`, limit: 0 }],
    overflow: { kind: 'bill', accountId, price, refuse: 'no_credits' },
    usage: [`key:${keyId}`],
    keyId,
  };
}
export const PEPPER = 'test-pepper-0123456789abcdef';
export const ADMIN_TOKEN = 'admin-token-0123456789';

export interface Instance extends GatewayUrls {
  gateway: Gateway;
  store: SharedStore;
}

export interface Pair {
  config: CompiledConfig;
  clock: ManualClock;
  instances: [Instance, Instance];
  key(accountId: string, kind?: KeyKind): Promise<{ key: string; record: ApiKey }>;
  close(): Promise<void>;
}

/** Start two gateways of rule set `policy` on the shared store of `env`. */
export async function startPair(
  env: SharedEnv,
  policy: 'A' | 'B',
  backendUrl: string,
  extra: Record<string, unknown> = {},
): Promise<Pair> {
  const doc = {
    policy,
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 }, token: ADMIN_TOKEN },
    backend: { url: backendUrl, timeoutMs: 5000 },
    store: { kind: 'shared', postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix },
    keyPepper: PEPPER,
    trustProxy: ['127.0.0.1/32'],
    hosts: [{ name: 'localhost', adapter: 'native' }],
    ...extra,
  };
  const config = compileConfig(validateConfig(doc, 'shared-test.yaml', {}), 'shared-test.yaml');
  const clock = new ManualClock(T0);
  const logger = pino({ level: 'silent' });
  const start = async (): Promise<Instance> => {
    const store = await env.open();
    const gateway = createGateway({ config, store, clock, logger, adminToken: ADMIN_TOKEN });
    return { ...(await gateway.listen()), gateway, store };
  };
  const instances: [Instance, Instance] = [await start(), await start()];
  return {
    config,
    clock,
    instances,
    async key(accountId, kind = 'payg') {
      const key = generateKey();
      const record = await instances[0].store.createKey(
        { accountId, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind },
        clock.now(),
      );
      return { key, record };
    },
    async close() {
      for (const i of instances) await i.gateway.close();
    },
  };
}

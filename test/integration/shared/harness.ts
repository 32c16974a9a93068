/**
 * Test harness of the shared store: a throw-away PostgreSQL database, a unique Redis key prefix (or a given Redis),
 * and a synchronous check that the servers are reachable, so a file can skip (outside CI) at load time.
 */
import { spawnSync } from 'node:child_process';
import { openSharedStore, type SharedStore, type SharedStoreOptions } from '../../../gateway/store/shared';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database';
import { deletePrefix, LOCAL_REDIS_URL, uniquePrefix } from '../../helpers/redis-server';

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

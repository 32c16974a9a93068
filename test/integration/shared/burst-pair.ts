/**
 * Two real gateway processes on one shared store (a throw-away PostgreSQL database and Redis prefix) with a key
 * burst limit, an account and a key created through instance 1's admin API: what the burst tests across instances
 * start from. `useBurstPair` registers the clean-up (processes, database, prefix, folder) in afterAll.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../helpers/gateway-harness';
import {
  killAll,
  startGatewayProc,
  useBackendProcess,
  type RunningProcess,
} from '../../helpers/gateway-processes';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database';
import { deletePrefix, LOCAL_REDIS_URL, uniquePrefix } from '../../helpers/redis-server';

export const BURST_TOKEN = 'burst-admin-token-0123456789';
export const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';

/** The running pair: each instance's main-host URL, instance 1's admin URL, and the key. */
export interface BurstPair {
  mains: [string, string];
  admin: string;
  auth: Record<string, string>;
  key: string;
  keyId: string;
  /** The store's Redis key prefix. */
  prefix: string;
}

/** Returns `start(perSecond, tag)`, to call inside a test; stops everything it started after the describe block. */
export function useBurstPair(): (perSecond: number, tag: string) => Promise<BurstPair> {
  const backend = useBackendProcess();
  let dir = '';
  let db: TestDatabase | null = null;
  let prefix = '';
  const procs: RunningProcess[] = [];

  afterAll(async () => {
    for (const p of procs) await killAll(p);
    if (db) await db.drop();
    if (prefix) await deletePrefix(LOCAL_REDIS_URL, prefix).catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  return async (perSecond, tag) => {
    dir = mkdtempSync(join(tmpdir(), `geogate-${tag}-`));
    db = await createTestDatabase();
    if (!db) throw new Error('PostgreSQL is not reachable');
    prefix = uniquePrefix(tag);
    const file = join(dir, 'gateway.yaml');
    writeFileSync(
      file,
      [
        'policy: A',
        'listen: { host: 127.0.0.1, port: 0 }',
        `admin: { listen: { host: 127.0.0.1, port: 0 }, token: ${BURST_TOKEN} }`,
        `backend: { url: "${backend.url}" }`,
        `store: { kind: shared, postgres: "${db.url}", redis: "${LOCAL_REDIS_URL}", keyPrefix: "${prefix}" }`,
        'keyPepper: "burst-pepper-0123456789abcdef"',
        'hosts: [{ name: localhost, adapter: native }]',
        'limits: { freePerDay: 1000000 }',
        `burst: { key: { perSecond: ${perSecond}, perMinute: 1000000 } }`,
        'log: { level: warn }',
        'drain: { delayMs: 0 }',
      ].join('\n'),
    );
    // Each process prints three URLs: the main host, the host `localhost` on it, the admin listener.
    procs.push(await startGatewayProc(file, 3));
    procs.push(await startGatewayProc(file, 3));
    const [a, b] = procs as [RunningProcess, RunningProcess];
    const admin = a.urls[2] as string;
    const auth = { authorization: `Bearer ${BURST_TOKEN}`, 'content-type': 'application/json' };
    const acc = await call(admin, '/admin/accounts', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ email: `${tag}@example.com`, name: tag, password: 'a long enough password' }),
    });
    expect(acc.status).toBe(201);
    const created = await call(admin, `/admin/accounts/${acc.json.id}/keys`, {
      method: 'POST',
      headers: auth,
      body: '{}',
    });
    expect(created.status).toBe(201);
    return {
      mains: [a.urls[0] as string, b.urls[0] as string],
      admin,
      auth,
      key: created.json.key as string,
      keyId: created.json.id as string,
      prefix,
    };
  };
}

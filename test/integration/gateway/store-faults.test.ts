/**
 * Store faults (issue 4): only "the store is unreachable" (StoreUnavailableError, SQLITE_BUSY and kin) gives 503
 * store_unavailable (closed) or uncounted service (open); any other thrown error is a bug: 500 internal, logged,
 * with no detail in the body, and never served uncounted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { compileConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';
import { ManualClock } from '../../../gateway/core/clock';
import { createGateway, type Gateway } from '../../../gateway/server';
import { createStore } from '../../../gateway/store';
import { StoreUnavailableError } from '../../../gateway/store/shared/errors';
import type { Store } from '../../../gateway/store/ports';
import { call, T0 } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const LEAK = 'secret-internals-0xDEADBEEF';
const IP = '/v1/ipv4?ip=8.8.8.8';

/** A real embedded store whose `method` throws `fault.error` while it is set. */
function faulty(store: Store, method: keyof Store, fault: { error: unknown }): Store {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === method && fault.error !== null) {
        return async () => {
          throw fault.error;
        };
      }
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const gw = useGatewayFixture();
const backend = gw.backend;

interface Running {
  url: string;
  logs: string[];
  fault: { error: unknown };
  close(): Promise<void>;
}
let running: Running | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

async function start(onStoreFailure: 'closed' | 'open', method: keyof Store = 'admit'): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-faults-'));
  const doc = {
    policy: 'A',
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
    backend: { url: backend.url },
    store: { kind: 'embedded', path: join(dir, 'geogate.db') },
    onStoreFailure,
    keyPepper: 'test-pepper-0123456789abcdef',
    hosts: [{ name: 'localhost', adapter: 'native' }],
  };
  const config = compileConfig(validateConfig(doc, 'test.yaml', {}), 'test.yaml');
  const clock = new ManualClock(T0);
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const real = await createStore({ kind: 'embedded', path: join(dir, 'geogate.db') }, { clock });
  const fault = { error: null as unknown };
  const gateway: Gateway = createGateway({ config, store: faulty(real, method, fault), clock, logger });
  const urls = await gateway.listen();
  running = {
    url: urls.mainUrl,
    logs,
    fault,
    async close() {
      await gateway.close();
      await real.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return running;
}

const sqliteError = (code: string) => Object.assign(new Error(`${code}: database is locked`), { code });

describe('onStoreFailure: closed', () => {
  test.each([
    ['StoreUnavailableError', () => new StoreUnavailableError('redis', 'connect ECONNREFUSED')],
    ['SQLITE_BUSY', () => sqliteError('SQLITE_BUSY')],
    ['SQLITE_IOERR_WRITE', () => sqliteError('SQLITE_IOERR_WRITE')],
  ])('%s → 503 store_unavailable', async (_name, make) => {
    const g = await start('closed');
    expect((await call(g.url, IP)).status).toBe(200); // the real store serves while no fault is set
    g.fault.error = make();
    const r = await call(g.url, IP);
    expect(r.status).toBe(503);
    expect(r.headers['content-type']).toMatch(/problem\+json/);
    expect(r.json).toMatchObject({ code: 'store_unavailable', status: 503 });
    expect(g.logs.some((l) => l.includes('store unavailable'))).toBe(true);
  });

  test.each([
    ['a TypeError (a bug)', () => new TypeError(`cannot read ${LEAK}`)],
    ['a plain Error', () => new Error(LEAK)],
    ['SQLITE_CONSTRAINT (not unreachable)', () => sqliteError('SQLITE_CONSTRAINT_UNIQUE')],
  ])('%s → 500 internal without detail, logged', async (_name, make) => {
    const g = await start('closed');
    g.fault.error = make();
    const r = await call(g.url, IP);
    expect(r.status).toBe(500);
    expect(r.headers['content-type']).toMatch(/problem\+json/);
    expect(r.json).toMatchObject({ code: 'internal', status: 500 });
    expect(r.text).not.toContain(LEAK);
    expect(r.text).not.toContain('SQLITE');
    expect(g.logs.some((l) => l.includes('request failed') && l.includes('"level":50'))).toBe(true);
  });

  test('a bug while identifying a key is a 500 too, and the key appears nowhere', async () => {
    const g = await start('closed', 'findKeyByHash');
    g.fault.error = new Error(LEAK);
    const key = 'gk_' + 'A'.repeat(43);
    const r = await call(g.url, IP, { headers: { 'x-api-key': key } });
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ code: 'internal' });
    expect(r.text).not.toContain(LEAK);
    expect(g.logs.join('\n')).not.toContain(key);
  });
});

describe('onStoreFailure: open', () => {
  test('an unreachable store serves the request uncounted', async () => {
    const g = await start('open');
    g.fault.error = new StoreUnavailableError('postgres', 'Connection terminated');
    const r = await call(g.url, IP);
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit']).toBeUndefined();
    expect(g.logs.some((l) => l.includes('serving uncounted'))).toBe(true);
  });

  test('a bug is never served uncounted: 500 internal', async () => {
    const g = await start('open');
    g.fault.error = new TypeError(LEAK);
    const r = await call(g.url, IP);
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ code: 'internal' });
    expect(r.text).not.toContain(LEAK);
    expect(g.logs.some((l) => l.includes('serving uncounted'))).toBe(false);
  });
});

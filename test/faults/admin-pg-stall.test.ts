/**
 * A stalled PostgreSQL (a private connection behind a proxy that freezes) seen by the operator and the customer:
 * an admin API call answers 503 store_unavailable (problem+json) within the API's bound (5 s, as
 * store-pg-stall.test.ts for the API), and so does the dashboard; neither answers 500 internal nor logs an error.
 */
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createDashboardApp } from '../../dashboard/app';
import { compileConfig } from '../../gateway/config/compile';
import { validateConfig } from '../../gateway/config/load';
import { systemClock } from '../../gateway/core/clock';
import { RULE_SET_A } from '../../gateway/policy/ruleset';
import { createGateway } from '../../gateway/server';
import type { SharedStore } from '../../gateway/store/shared';
import { call } from '../helpers/gateway-harness';
import { Client, ORIGIN, PASSWORD, PEPPER, SECRET } from '../integration/dashboard/fixture';
import { describeShared, sharedEnv, type SharedEnv } from '../integration/shared/harness';
import { FreezeProxy } from './freeze-proxy';

jest.setTimeout(120_000);

const TOKEN = 'admin-token-0123456789';
const T0 = Date.UTC(2026, 10, 22, 10);

/** Log lines, to show a fault is a warning and never an error. */
class Lines extends Writable {
  readonly lines: { level: number; msg: string }[] = [];
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    for (const l of chunk.toString('utf8').split('\n')) if (l) this.lines.push(JSON.parse(l) as never);
    done();
  }
}

describeShared('faults: PostgreSQL stalls under the admin API and the dashboard', () => {
  let env: SharedEnv;
  let store: SharedStore;
  const proxy = new FreezeProxy({ host: '127.0.0.1', port: 5432 });
  beforeAll(async () => {
    env = await sharedEnv(undefined, 'adminstall');
    await proxy.listen();
    store = await env.open({ postgres: proxy.urlFor(env.db.url) });
  }, 60_000);
  afterAll(async () => {
    proxy.thaw();
    await store?.close();
    await proxy.close();
    await env?.cleanup();
  });
  afterEach(() => proxy.thaw());

  it('an admin call answers 503 store_unavailable within 5 s, then 200 once PostgreSQL is back', async () => {
    const doc = {
      policy: 'A',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: TOKEN },
      backend: { url: 'http://127.0.0.1:9' },
      store: { kind: 'embedded', path: '/nonexistent/unused.db' },
      keyPepper: 'test-pepper-0123456789abcdef',
      hosts: [{ name: 'localhost', adapter: 'native' }],
    };
    const config = compileConfig(validateConfig(doc, 'test.yaml', {}), 'test.yaml');
    const logs = new Lines();
    const g = createGateway({ config, store, clock: systemClock, logger: pino({ level: 'info' }, logs) });
    const { adminUrl } = await g.listen();
    const admin = (path: string) =>
      call(adminUrl ?? '', path, { headers: { authorization: `Bearer ${TOKEN}` } });
    try {
      const acc = await store.createAccount({ email: 'admin-stall@example.org' }, T0);
      expect((await admin(`/admin/accounts/${acc.id}`)).status).toBe(200);
      proxy.freeze();
      for (const path of [
        `/admin/accounts/${acc.id}`,
        `/admin/accounts/${acc.id}/ledger`,
        '/admin/accounts/list',
      ]) {
        const t = performance.now();
        const r = await admin(path);
        const ms = performance.now() - t;
        if (process.env.GG_VERBOSE)
          console.log({ path, status: r.status, adminStallAnswerMs: Math.round(ms) });
        expect(r.status).toBe(503);
        expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(r.json).toMatchObject({ status: 503, code: 'store_unavailable' });
        expect(ms).toBeLessThan(5_000);
      }
      expect(logs.lines.filter((l) => l.level >= 50)).toEqual([]);
      expect(logs.lines.some((l) => l.msg === 'admin: store unavailable')).toBe(true);
      proxy.thaw();
      expect((await admin(`/admin/accounts/${acc.id}`)).status).toBe(200);
    } finally {
      proxy.thaw();
      await g.close();
    }
  });

  it('a dashboard request answers 503 store_unavailable within 5 s (a sign-in)', async () => {
    const logs = new Lines();
    const app = createDashboardApp({
      store,
      rules: RULE_SET_A,
      pepper: PEPPER,
      clock: systemClock,
      logger: pino({ level: 'info' }, logs),
      config: {
        listen: { host: '127.0.0.1', port: 0 },
        publicUrl: ORIGIN,
        sessionSecret: SECRET,
        payments: { provider: 'test' },
      },
    });
    const c = new Client(app);
    expect((await c.get('/signin')).status).toBe(200);
    proxy.freeze();
    const t = performance.now();
    const r = await c.form('/signin', { email: 'dash-stall@example.org', password: PASSWORD });
    const ms = performance.now() - t;
    if (process.env.GG_VERBOSE) console.log({ status: r.status, dashboardStallAnswerMs: Math.round(ms) });
    expect(r.status).toBe(503);
    expect(ms).toBeLessThan(5_000);
    expect(logs.lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(logs.lines.some((l) => l.msg === 'dashboard: store unavailable')).toBe(true);
  });
});

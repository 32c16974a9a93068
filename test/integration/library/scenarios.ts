/**
 * Rule set A and B scenarios through geogate used as a library: test/fixtures/library/app.js (Express with the
 * middleware and a custom `admit` flow, Fastify with the plugin, the admin API on a listener of its own) runs as a
 * real process against the real backend. Shared by the in-repo suite (the built dist/) and the opt-in suite that
 * installs the package from its `npm pack` tarball (test/optin/library-pack.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { call, type Answer } from '../../helpers/gateway-harness';
import { useBackendProcess } from '../../helpers/gateway-processes';

const TOKEN = 'library-admin-token-0123456789';
const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';

/** Where the application runs: its script and the module it loads geogate from. */
export interface LibrarySite {
  /** app.js (in the repo, or copied into the temporary project). */
  app: string;
  /** GEOGATE_MODULE: the built entry in the repo, or "geogate" in the temporary project. */
  module: string;
  cwd: string;
}

/** A running application. */
export interface RunningApp {
  express: string;
  fastify: string;
  admin: string;
  child: ChildProcess;
  stderr: () => string;
  /** Ask it to close everything; resolves with its last line and exit code once it ended by itself. */
  close(): Promise<{ line: { closed: boolean; left: string[] }; code: number | null; ms: number }>;
}

/** Write a config and start the application; it answers with its URLs. */
export async function startApp(
  site: LibrarySite,
  backendUrl: string,
  policy: 'A' | 'B',
  limits: Record<string, number>,
): Promise<RunningApp> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-lib-'));
  const config = join(dir, 'geogate.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      policy,
      admin: { token: TOKEN },
      backend: { url: backendUrl, timeoutMs: 5000 },
      store: { kind: 'embedded', path: join(dir, 'geogate.db') },
      keyPepper: 'library-pepper-0123456789',
      trustProxy: ['127.0.0.1/32'],
      limits,
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { name: 'maps.test', adapter: 'google' },
      ],
      log: { level: 'warn' },
    }),
  );
  const child = spawn(process.execPath, [site.app], {
    cwd: site.cwd,
    env: { ...process.env, GEOGATE_MODULE: site.module, GEOGATE_CONFIG: config, BACKEND_URL: backendUrl },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const next = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`app exited: ${err}`));
      child.once('exit', onExit);
      lines.once('line', (l) => {
        child.off('exit', onExit);
        resolve(l);
      });
    });
  const urls = JSON.parse(await next()) as { express: string; fastify: string; admin: string };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    ...urls,
    child,
    stderr: () => err,
    async close() {
      const t0 = Date.now();
      const last = next();
      child.stdin?.write('close\n');
      const line = JSON.parse(await last) as { closed: boolean; left: string[] };
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return { line, code, ms: Date.now() - t0 };
    },
  };
}

/** The admin API over HTTP (docs/admin.md). */
function admin(app: RunningApp) {
  const send = async (method: string, path: string, body?: unknown): Promise<Answer> =>
    call(app.admin, path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  let n = 0;
  return {
    async account(policy: 'A' | 'B', amount: string | number): Promise<string> {
      const email = `lib${++n}-${Date.now()}@example.com`;
      const made = await send(
        'POST',
        '/admin/accounts',
        policy === 'A' ? { email, name: 'Library', password: 'correct horse battery' } : { email },
      );
      expect(made.status).toBe(201);
      const id = made.json.id as string;
      if (amount !== 0)
        expect((await send('POST', `/admin/accounts/${id}/credit`, { amount })).status).toBe(201);
      return id;
    },
    async key(accountId: string): Promise<{ key: string; id: string }> {
      const made = await send('POST', `/admin/accounts/${accountId}/keys`, {});
      expect(made.status).toBe(201);
      return { key: made.json.key as string, id: made.json.id as string };
    },
    async balance(accountId: string): Promise<string | number> {
      return (await send('GET', `/admin/accounts/${accountId}`)).json.balance;
    },
    async ledger(accountId: string): Promise<unknown[]> {
      const r = await send('GET', `/admin/accounts/${accountId}/ledger`);
      return (r.json.entries ?? r.json) as unknown[];
    },
  };
}

const from = (ip: string, headers: Record<string, string> = {}) => ({
  headers: { 'x-forwarded-for': ip, ...headers },
});

/** The suite: `site` is read in beforeAll (the opt-in suite builds it first). */
export function describeLibrary(site: () => LibrarySite): void {
  // Each test starts the application process (a few seconds on a loaded machine).
  jest.setTimeout(90_000);
  const backend = useBackendProcess();
  const running: RunningApp[] = [];
  const start = async (policy: 'A' | 'B', limits: Record<string, number>) => {
    const app = await startApp(site(), backend.url, policy, limits);
    running.push(app);
    return app;
  };
  afterEach(async () => {
    for (const app of running.splice(0)) if (app.child.exitCode === null) await app.close();
  });

  describe('rule set A through the Express middleware', () => {
    test('anonymous allowance: 2 free, then 429 quota_exceeded with Retry-After and the RateLimit fields', async () => {
      const app = await start('A', { freePerDay: 2 });
      const a = [];
      for (let i = 0; i < 3; i++) a.push(await call(app.express, `/geo${REVERSE}`, from('203.0.113.5')));
      expect(a.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(a[0]?.headers['ratelimit-policy']).toBe('"daily";q=2;w=86400');
      expect(a[1]?.headers['ratelimit']).toMatch(/^"daily";r=0;t=\d+$/);
      expect(a[2]?.json).toMatchObject({ code: 'quota_exceeded', status: 429 });
      expect(Number(a[2]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another address has its own allowance.
      expect((await call(app.express, `/geo${REVERSE}`, from('198.51.100.7'))).status).toBe(200);
    });

    test('keyed billing past the allowance, 402 no_credits at zero balance, and the refusal changes nothing', async () => {
      const app = await start('A', { freePerDay: 1 });
      const api = admin(app);
      const acc = await api.account('A', '0.0002');
      const { key } = await api.key(acc);
      const statuses = [];
      for (let i = 0; i < 4; i++)
        statuses.push(
          (await call(app.express, `/geo${REVERSE}`, from('203.0.113.9', { 'x-api-key': key }))).status,
        );
      expect(statuses).toEqual([200, 200, 200, 402]);
      expect(await api.balance(acc)).toBe('0.0000');
      const ledger = await api.ledger(acc);
      const refused = await call(app.express, `/geo${REVERSE}`, from('203.0.113.9', { 'x-api-key': key }));
      expect(refused.json).toMatchObject({ code: 'no_credits', status: 402 });
      expect(await api.balance(acc)).toBe('0.0000');
      expect(await api.ledger(acc)).toEqual(ledger);
    });

    test('a drop-in host mounted by the middleware answers in its provider shape (Google)', async () => {
      const app = await start('A', { freePerDay: 1 });
      const ok = await call(
        app.express,
        '/maps/maps/api/geocode/json?latlng=48.8584,2.2945',
        from('203.0.113.20'),
      );
      expect([ok.status, ok.json.status]).toEqual([200, 'OK']);
      const over = await call(
        app.express,
        '/maps/maps/api/geocode/json?latlng=48.8584,2.2945',
        from('203.0.113.20'),
      );
      expect([over.status, over.json.status]).toEqual([200, 'OVER_QUERY_LIMIT']);
    });

    test('admit → reply → settle: kept when the work answered, released on a backend failure (nothing charged)', async () => {
      const app = await start('A', { freePerDay: 0 });
      const api = admin(app);
      const acc = await api.account('A', '0.0010');
      const { key, id } = await api.key(acc);
      const headers = from('203.0.113.30', { 'x-api-key': key });
      const failed = await call(app.express, '/custom/lookup?fail=1&units=3', headers);
      expect([failed.status, failed.json.settled]).toEqual([502, 'released']);
      expect(await api.balance(acc)).toBe('0.0010');
      const served = await call(app.express, '/custom/lookup?units=3', headers);
      expect(served.status).toBe(200);
      expect(served.json).toEqual({ settled: 'kept', caller: 'key', keyId: id });
      expect(served.headers['x-request-id']).toBeTruthy();
      expect(await api.balance(acc)).toBe('0.0007');
      // A refused admission is answered by reply() in the host's shape; nothing was admitted, so nothing settles.
      const refused = await call(app.express, '/custom/lookup?units=8', headers);
      expect(refused.json).toMatchObject({ code: 'no_credits', status: 402 });
      expect(await api.balance(acc)).toBe('0.0007');
      const anonymous = await call(app.express, '/custom/lookup', from('203.0.113.31'));
      expect(anonymous.status).toBe(429);
    });
  });

  describe('rule set B through the Fastify plugin', () => {
    test('X-Quota headers, credits past the allowance, then 429 quota_exceeded; Fastify routes beside it keep working', async () => {
      const app = await start('B', { freePerDay: 1 });
      const api = admin(app);
      const acc = await api.account('B', 1);
      const { key } = await api.key(acc);
      const h = from('203.0.113.40', { 'x-api-key': key });
      const first = await call(app.fastify, `/geo${REVERSE}`, h);
      expect(first.status).toBe(200);
      expect([first.headers['x-quota-used'], first.headers['x-quota-limit']]).toEqual(['1', '1']);
      expect((await call(app.fastify, `/geo${REVERSE}`, h)).status).toBe(200);
      expect(await api.balance(acc)).toBe(0);
      const refused = await call(app.fastify, `/geo${REVERSE}`, h);
      expect(refused.status).toBe(429);
      expect(refused.json.code).toBe('quota_exceeded');
      expect(refused.headers['x-quota-reset']).toMatch(/^\d+$/);
      expect(await api.balance(acc)).toBe(0);
      expect((await call(app.fastify, '/hello')).json).toEqual({ hello: 'fastify' });
    });

    test('a form body is left to the pipeline (D2a): a key in it is read, and refused where the rule set reads none', async () => {
      const app = await start('B', { freePerDay: 5 });
      const api = admin(app);
      const { key } = await api.key(await api.account('B', 0));
      const r = await call(app.fastify, '/geo/v1/reverse', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.41' },
        body: `lat=48.8584&lon=2.2945&key=${key}`,
      });
      // Rule set B reads no key from a form body (D2): the pipeline read it, so it is refused, never served anonymously.
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ code: 'invalid_key', parameter: 'form:key' });
    });
  });

  test('close() leaves no handle open: the process ends by itself', async () => {
    const app = await start('A', { freePerDay: 5 });
    expect((await call(app.express, `/geo${REVERSE}`, from('203.0.113.50'))).status).toBe(200);
    const closed = await app.close();
    expect(closed.line.closed).toBe(true);
    expect(closed.line.left.filter((r) => /TCP|Timeout|Immediate/.test(r))).toEqual([]);
    expect(closed.code).toBe(0);
    expect(closed.ms).toBeLessThan(5_000);
  });
}

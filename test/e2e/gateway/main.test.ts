/** The gateway process (`node dist/gateway/main.js --config FILE`): refuses bad configs clearly, starts, serves. */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, startGatewayProc, useBackendProcess, useTempDir, type RunningProcess } from '../harness';

const MAIN = join(__dirname, '../../../dist/gateway/main.js');
let dir: string;
useTempDir('geogate-main-', (d) => (dir = d));

/** Write a config file from lines. */
const configFile = (name: string, lines: string[]): string => {
  const file = join(dir, name);
  writeFileSync(file, lines.join('\n'));
  return file;
};
const base = (backendUrl: string) => [
  'listen: { host: 127.0.0.1, port: 0 }',
  'admin: { listen: { host: 127.0.0.1, port: 0 } }',
  `backend: { url: "${backendUrl}" }`,
  `store: { kind: embedded, path: "${join(dir, 'g.db')}" }`,
  'keyPepper: "${PEPPER}"',
  'hosts: [{ name: localhost, adapter: native }]',
  'log: { level: silent }',
  'drain: { delayMs: 0 }', // issue 14: stop() sends SIGTERM; no load balancer to wait for here
];
const run = (file: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [MAIN, '--config', file], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });

describe('bad configs are refused at start with the file and the path (D1)', () => {
  test('no policy', () => {
    const file = configFile('nopolicy.yaml', base('http://127.0.0.1:1'));
    const r = run(file, { PEPPER: 'p'.repeat(20) });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}: policy: required: "A" or "B"`);
  });
  test('unknown adapter and unknown key', () => {
    const lines = ['policy: A', ...base('http://127.0.0.1:1'), 'limts: {}'].map((l) =>
      l.replace('adapter: native', 'adapter: foo'),
    );
    const file = configFile('bad.yaml', lines);
    const r = run(file, { PEPPER: 'p'.repeat(20) });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}: hosts[0].adapter: unknown adapter "foo"`);
    expect(r.stderr).toContain(`${file}: limts: unknown key`);
  });
  test('a missing environment variable is named', () => {
    const file = configFile('noenv.yaml', ['policy: B', ...base('http://127.0.0.1:1')]);
    const r = run(file, { PEPPER: '' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${file}: keyPepper: environment variable PEPPER is not set`);
  });
});

describe('a running gateway process', () => {
  let gw: RunningProcess;
  afterAll(async () => {
    await gw?.stop();
  });
  const backend = useBackendProcess();

  test('prints its URLs and where a generated admin token is kept (issue 13: never the token); serves the main host and the admin API', async () => {
    const file = configFile('ok.yaml', ['policy: A', ...base(backend.url)]);
    const tokenFile = join(dir, 'secrets', 'admin-token');
    gw = await startGatewayProc(file, 3, {
      PEPPER: 'p'.repeat(20),
      GEOGATE_ADMIN_TOKEN: '',
      GEOGATE_ADMIN_TOKEN_FILE: tokenFile,
    });
    expect(gw.output()).toContain(`gateway: admin token in ${tokenFile} (mode 0600)`);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(gw.output()).not.toContain(token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const adminUrl = gw.urls[2] as string;
    expect((await call(gw.url, '/v1/ipv4?ip=8.8.8.8')).json.country_code).toBe('US');
    expect((await call(adminUrl, '/healthz')).status).toBe(200);
    const created = await call(adminUrl, '/admin/accounts', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'main@example.com', name: 'Main', password: 'a long enough password' }),
    });
    expect(created.status).toBe(201);
    expect(
      (
        await call(adminUrl, '/admin/accounts', {
          method: 'POST',
          headers: { authorization: 'Bearer wrong' },
        })
      ).status,
    ).toBe(401);
  });

  test('with a dashboard section: prints the dashboard URL and serves /signin there; /readyz sees store and backend', async () => {
    await gw?.stop();
    const dashboard = [
      'dashboard:',
      '  listen: { host: 127.0.0.1, port: 0 }',
      "  publicUrl: 'http://127.0.0.1:8082'",
      "  sessionSecret: '${GEOGATE_DASHBOARD_SECRET}'",
      '  payments: { provider: test }',
    ];
    const file = configFile('dash.yaml', ['policy: B', ...base(backend.url), ...dashboard]);
    gw = await startGatewayProc(file, 4, {
      PEPPER: 'p'.repeat(20),
      GEOGATE_ADMIN_TOKEN: 'admin-token-0123456789',
      GEOGATE_DASHBOARD_SECRET: 'd'.repeat(40),
    });
    const dashboardUrl = /gateway: dashboard on (http:\/\/\S+)/.exec(gw.output())?.[1] as string;
    expect(dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const page = await call(dashboardUrl, '/signin');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const ready = await call(gw.urls[2] as string, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.checks).toEqual({ sqlite: true, backend: true });
  });
});

test('a dashboard section without its session secret variable is refused naming the path', () => {
  const lines = [
    'policy: A',
    ...base('http://127.0.0.1:1'),
    'dashboard: { listen: { port: 0 }, publicUrl: "http://x.test", sessionSecret: "${GEOGATE_DASHBOARD_SECRET}", payments: { provider: test } }',
  ];
  const file = configFile('dash-nosecret.yaml', lines);
  const r = run(file, { PEPPER: 'p'.repeat(20), GEOGATE_DASHBOARD_SECRET: '' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain(
    `${file}: dashboard.sessionSecret: environment variable GEOGATE_DASHBOARD_SECRET is not set`,
  );
});

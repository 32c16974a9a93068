/** `npm start` (dist/scripts/start.js): backend + gateway on the embedded store; the pepper and admin token persist. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, useTempDir } from '../harness';

const ROOT = join(__dirname, '../../..');
let dir: string;
useTempDir('geogate-start-', (d) => (dir = d));
beforeAll(() => {
  // The example config of rule set A on ephemeral ports.
  const example = readFileSync(join(ROOT, 'config/example-a.yaml'), 'utf8');
  writeFileSync(
    join(dir, 'a.yaml'),
    example
      .replace(/port: 8080/, 'port: 0')
      .replace(/port: 8081/, 'port: 0')
      .replace(/port: 8082/, 'port: 0'),
  );
});

/** Run the launcher until it prints its banner; resolve with the URLs and the child. */
function launch(): Promise<{
  child: ChildProcess;
  main: string;
  admin: string;
  dashboard: string;
  out: () => string;
}> {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'dist/scripts/start.js'), '--config', join(dir, 'a.yaml')],
    {
      env: {
        ...process.env,
        GEOGATE_DATA_DIR: dir,
        BACKEND_PORT: '0',
        GEOGATE_ADMIN_TOKEN: '',
        GEOGATE_KEY_PEPPER: '',
        GEOGATE_DASHBOARD_SECRET: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const main = /main host:\s+(http:\/\/\S+)/.exec(out)?.[1];
      const admin = /admin API:\s+(http:\/\/\S+)/.exec(out)?.[1];
      const dashboard = /dashboard:\s+(http:\/\/\S+)/.exec(out)?.[1];
      if (main && admin && dashboard && out.includes('keys create'))
        resolve({ child, main, admin, dashboard, out: () => out });
    });
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => reject(new Error(`start.js exited ${code}: ${out}`)));
  });
}

/** SIGTERM and wait. */
const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

test('prints URLs, token location and CLI steps; a key created through the admin API survives a restart', async () => {
  const first = await launch();
  let key: string;
  try {
    expect(first.out()).toContain(`bearer token in ${join(dir, 'admin-token')}`);
    expect(first.out()).toContain('node dist/gateway/cli/main.js');
    const token = readFileSync(join(dir, 'admin-token'), 'utf8').trim();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const acc = await call(first.admin, '/admin/accounts', {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ email: 'start@example.com', name: 'Start', password: 'a long enough password' }),
    });
    expect(acc.status).toBe(201);
    const created = await call(first.admin, `/admin/accounts/${acc.json.id}/keys`, {
      method: 'POST',
      headers: auth,
      body: '{}',
    });
    expect(created.status).toBe(201);
    key = created.json.key;
    expect((await call(first.main, '/v1/ipv4?ip=8.8.8.8', { headers: { 'x-api-key': key } })).status).toBe(
      200,
    );
  } finally {
    await stop(first.child);
  }
  const secret = readFileSync(join(dir, 'dashboard-secret'), 'utf8');
  const second = await launch();
  try {
    // Issue 6: the dashboard's session secret is kept in the data folder (mode 0600) and reused.
    expect(readFileSync(join(dir, 'dashboard-secret'), 'utf8')).toBe(secret);
    expect(statSync(join(dir, 'dashboard-secret')).mode & 0o777).toBe(0o600);
    expect((await call(second.dashboard, '/signin')).status).toBe(200);
    const r = await call(second.main, '/v1/ipv4?ip=8.8.8.8', { headers: { 'x-api-key': key } });
    expect(r.status).toBe(200); // same pepper from the data folder: the stored hash still matches
  } finally {
    await stop(second.child);
  }
}, 120_000);

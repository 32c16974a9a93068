/**
 * Operator basics on the compiled binaries: `--version` on each, `geogate config check` with the start-up's own
 * messages and exit codes, `GET /version` behind the admin token, `geogate_build_info`, and the `npm start` launcher's
 * `--help` (prints, starts nothing, writes nothing) and data folder (outside the checkout unless told).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { parseExposition } from '../../helpers/exposition';
import {
  call,
  runNode,
  startGatewayProc,
  useBackendProcess,
  useTempDir,
  type RunningProcess,
} from '../harness';

const ROOT = join(__dirname, '../../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const bin = (p: string) => join(ROOT, 'dist', p);
const BINARIES: [string, string][] = [
  ['gateway/main.js', 'geogate-gateway'],
  ['backend/main.js', 'geogate-backend'],
  ['gateway/cli/main.js', 'geogate'],
  ['scripts/start.js', 'geogate-start'],
];
const PATH_ONLY = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
// Each case spawns compiled binaries, a second or more each on a loaded machine.
jest.setTimeout(60_000);
let dir: string;
useTempDir('geogate-ops-', (d) => (dir = d));

test.each(BINARIES)('%s --version prints "%s <version> (node …)" and exits 0', async (file, name) => {
  const r = await runNode(bin(file), ['--version'], PATH_ONLY);
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe(`${name} ${VERSION} (node ${process.version})`);
});

describe('geogate config check FILE', () => {
  const SECRETS = { GEOGATE_KEY_PEPPER: 'pepper-0123456789abcdef', GEOGATE_DASHBOARD_SECRET: 's'.repeat(40) };

  test('a valid file: exit 0 and a summary; --json gives the same as JSON', async () => {
    const file = join(ROOT, 'config/example-b.yaml');
    const r = await runNode(bin('gateway/cli/main.js'), ['config', 'check', file], {
      ...PATH_ONLY,
      ...SECRETS,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${file}: valid`);
    expect(r.stdout).toContain('rule set B, embedded store');
    const j = await runNode(bin('gateway/cli/main.js'), ['config', 'check', file, '--json'], {
      ...PATH_ONLY,
      ...SECRETS,
    });
    expect(JSON.parse(j.stdout)).toMatchObject({ file, ruleSet: 'B', store: 'embedded', dashboard: true });
  });

  test('an invalid file: exit 2 and exactly the messages the gateway prints when it refuses to start', async () => {
    const file = join(dir, 'bad.yaml');
    const example = readFileSync(join(ROOT, 'config/example-a.yaml'), 'utf8');
    // One error in the gateway's part, one in the dashboard's own section.
    writeFileSync(
      file,
      example
        .replace('onStoreFailure: closed', 'onStoreFailure: sometimes')
        .replace("sessionSecret: '${GEOGATE_DASHBOARD_SECRET}'", "sessionSecret: 'short'"),
    );
    const env = { ...PATH_ONLY, GEOGATE_KEY_PEPPER: SECRETS.GEOGATE_KEY_PEPPER };
    const check = await runNode(bin('gateway/cli/main.js'), ['config', 'check', file], env);
    const start = await runNode(bin('gateway/main.js'), ['--config', file], env);
    expect(start.code).toBe(2);
    expect(check.code).toBe(2);
    expect(check.stdout).toBe('');
    expect(check.stderr).toBe(start.stderr);
    expect(check.stderr).toContain('onStoreFailure');
    expect(check.stderr).toContain('dashboard.sessionSecret');
    // A variable the file needs and the environment lacks: the same refusal too.
    const checkNoEnv = await runNode(bin('gateway/cli/main.js'), ['config', 'check', file], PATH_ONLY);
    const startNoEnv = await runNode(bin('gateway/main.js'), ['--config', file], PATH_ONLY);
    expect([checkNoEnv.code, startNoEnv.code]).toEqual([2, 2]);
    expect(checkNoEnv.stderr).toBe(startNoEnv.stderr);
    expect(checkNoEnv.stderr).toContain('environment variable GEOGATE_KEY_PEPPER is not set');
  });

  test('a missing file or argument is a clear error with exit 2', async () => {
    const missing = await runNode(
      bin('gateway/cli/main.js'),
      ['config', 'check', join(dir, 'nope.yaml')],
      PATH_ONLY,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read the config file');
    const none = await runNode(bin('gateway/cli/main.js'), ['config', 'check'], PATH_ONLY);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('usage: geogate config check FILE');
  });
});

describe('the admin listener: GET /version and geogate_build_info', () => {
  const backend = useBackendProcess();
  let gw: RunningProcess | null = null;
  afterAll(async () => {
    await gw?.stop();
  });

  test('/version needs the bearer token and names the build; the metric carries the same version', async () => {
    const file = join(dir, 'version.yaml');
    writeFileSync(
      file,
      [
        'policy: B',
        'listen: { host: 127.0.0.1, port: 0 }',
        'admin: { listen: { host: 127.0.0.1, port: 0 }, token: "admin-token-0123456789" }',
        `backend: { url: "${backend.url}" }`,
        `store: { kind: embedded, path: "${join(dir, 'v.db')}" }`,
        `keyPepper: "${'p'.repeat(20)}"`,
        'hosts: [{ name: localhost, adapter: native }]',
        'log: { level: silent }',
        'drain: { delayMs: 0 }',
      ].join('\n'),
    );
    gw = await startGatewayProc(file, 3);
    const admin = gw.urls[2] as string;
    const anonymous = await call(admin, '/version');
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain(VERSION);
    const wrong = await call(admin, '/version', {
      headers: { authorization: 'Bearer wrong-token-0123456789' },
    });
    expect(wrong.status).toBe(401);
    const r = await call(admin, '/version', { headers: { authorization: 'Bearer admin-token-0123456789' } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ version: VERSION, node: process.version, ruleSet: 'B' });
    const metrics = parseExposition((await call(admin, '/metrics')).text);
    expect(metrics.filter((s) => s.name === 'geogate_build_info')).toEqual([
      { name: 'geogate_build_info', labels: { version: VERSION, node: process.version }, value: 1 },
    ]);
  }, 60_000);
});

describe('the npm start launcher (dist/scripts/start.js)', () => {
  /** What the checkout's data/ folder holds now (null: absent), to prove the launcher left it alone. */
  const checkoutData = (): string | null => {
    const d = join(ROOT, 'data');
    if (!existsSync(d)) return null;
    return readdirSync(d)
      .map((f) => `${f}:${statSync(join(d, f)).mtimeMs}`)
      .sort()
      .join(',');
  };

  test('--help prints the options and starts nothing, writing nothing anywhere', async () => {
    const before = checkoutData();
    const home = join(dir, 'home-help');
    const r = await runNode(bin('scripts/start.js'), ['--help'], { ...PATH_ONLY, HOME: home });
    expect(r.code).toBe(0);
    for (const option of ['--policy A|B', '--config FILE', '--data DIR', '--version', '--help'])
      expect(r.stdout).toContain(option);
    expect(r.stdout).toContain('~/.local/share/geogate');
    expect(existsSync(home)).toBe(false);
    expect(checkoutData()).toBe(before);
  });

  test('an unknown option is refused with the usage, exit 2', async () => {
    const r = await runNode(bin('scripts/start.js'), ['--port', '9'], {
      ...PATH_ONLY,
      HOME: join(dir, 'h2'),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--port'");
    expect(r.stderr).toContain('usage: npm start');
  });

  test('without --data or GEOGATE_DATA_DIR the store and the secrets go to ~/.local/share/geogate, not the checkout', async () => {
    const before = checkoutData();
    const home = join(dir, 'home');
    const config = join(dir, 'start-a.yaml');
    writeFileSync(
      config,
      readFileSync(join(ROOT, 'config/example-a.yaml'), 'utf8').replace(/port: 808[012]/g, 'port: 0'),
    );
    const child = spawn(process.execPath, [bin('scripts/start.js'), '--config', config], {
      env: { ...PATH_ONLY, HOME: home, BACKEND_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let out = '';
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.includes('keys create')) resolve();
        });
        child.stderr.on('data', (c: Buffer) => (out += c.toString()));
        void exited.then((code) => reject(new Error(`start.js exited ${code}: ${out}`)));
      });
      const data = join(home, '.local/share/geogate');
      expect(out).toContain(`data folder: ${data}`);
      expect(out).toContain(`bearer token in ${join(data, 'admin-token')}`);
      expect(readdirSync(data)).toEqual(
        expect.arrayContaining(['admin-token', 'key-pepper', 'dashboard-secret', 'geogate-a.db']),
      );
      expect(checkoutData()).toBe(before);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});

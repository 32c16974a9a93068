/** The process's secrets (issue 13 item 6): a generated admin token lives in a 0600 file; only its path is told. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig, validateConfig } from '../../../runtime/config';
import { adminToken, developmentNotice } from '../../../runtime/main';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'geogate-runtime-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (extra: Record<string, unknown> = {}) =>
  compileConfig(
    validateConfig(
      {
        policy: 'B',
        backend: { url: 'http://127.0.0.1:1' },
        store: { kind: 'embedded', path: join(dir, 'g.db') },
        keyPepper: 'p'.repeat(20),
        hosts: [{ name: 'localhost', adapter: 'native' }],
        ...extra,
      },
      'test.yaml',
      {},
    ),
    'test.yaml',
  );

const dashboard = (development?: boolean) => ({
  dashboard: {
    listen: { port: 0 },
    publicUrl: 'http://localhost:8082', // development mode needs a loopback address
    sessionSecret: 's'.repeat(40),
    payments: { provider: 'test' },
    ...(development === undefined ? {} : { development }),
  },
});

test('a generated admin token is written with mode 0600, reused on the next start, and never in the message', () => {
  const env = { GEOGATE_DATA_DIR: join(dir, 'data') };
  const first = adminToken(config(), env);
  const file = join(dir, 'data', 'admin-token');
  expect(first.source).toBe(`${file} (mode 0600)`);
  expect(first.source).not.toContain(first.token);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(readFileSync(file, 'utf8').trim()).toBe(first.token);
  expect(adminToken(config(), env).token).toBe(first.token);
  const explicit = join(dir, 'elsewhere', 'token');
  expect(adminToken(config(), { ...env, GEOGATE_ADMIN_TOKEN_FILE: explicit }).source).toBe(
    `${explicit} (mode 0600)`,
  );
});

test('a token from the config or the environment is used as is and no file is written', () => {
  const env = { GEOGATE_DATA_DIR: join(dir, 'data'), GEOGATE_ADMIN_TOKEN: 'from-the-environment-0123' };
  expect(adminToken(config(), env)).toEqual({
    token: 'from-the-environment-0123',
    source: 'GEOGATE_ADMIN_TOKEN',
  });
  const inFile = config({ admin: { token: 'from-the-config-file-0123' } });
  expect(adminToken(inFile, env)).toEqual({ token: 'from-the-config-file-0123', source: 'the config file' });
  expect(() => statSync(join(dir, 'data', 'admin-token'))).toThrow();
});

test('the launcher line for development mode appears only when dashboard.development is true', () => {
  expect(developmentNotice(config())).toBeNull();
  expect(developmentNotice(config(dashboard()))).toBeNull();
  expect(developmentNotice(config(dashboard(false)))).toBeNull();
  expect(developmentNotice(config(dashboard(true)))).toMatch(
    /DEVELOPMENT MODE.*sign-in links are written to the log/,
  );
});

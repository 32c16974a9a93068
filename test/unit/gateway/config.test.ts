/** Config validation (strict, file and path named), ${ENV} substitution, and compilation (D1, D2, D3). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig, loadConfigFile, validateConfig } from '../../../runtime/config';

const base = () => ({
  policy: 'A',
  backend: { url: 'http://127.0.0.1:8090' },
  store: { kind: 'embedded', path: './data/x.db' },
  keyPepper: 'p'.repeat(32),
  hosts: [{ name: 'localhost', adapter: 'native' }],
});
const F = 'config/x.yaml';
const refused = (doc: unknown, env: NodeJS.ProcessEnv = {}): string => {
  try {
    validateConfig(doc, F, env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
};

describe('config validation', () => {
  test('accepts the minimal config with defaults', () => {
    const c = validateConfig(base(), F, {});
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(c.backend.timeoutMs).toBe(5000);
    expect(c.onStoreFailure).toBe('closed');
    expect(c.hosts[0]?.anonymous).toBe(true);
  });
  test('D1: a config without policy is refused with a clear message', () => {
    const { policy: _p, ...rest } = base();
    expect(refused(rest)).toMatch(/^config\/x\.yaml: policy: required: "A" or "B"/);
  });
  test('an unknown adapter is refused naming the host path', () => {
    const doc = { ...base(), hosts: [{ name: 'x', adapter: 'foo' }] };
    expect(refused(doc)).toBe('config/x.yaml: hosts[0].adapter: unknown adapter "foo"');
  });
  test('unknown keys are refused with their path', () => {
    expect(refused({ ...base(), lmits: {} })).toBe('config/x.yaml: lmits: unknown key');
    expect(refused({ ...base(), limits: { freePerDy: 3 } })).toBe(
      'config/x.yaml: limits.freePerDy: unknown key',
    );
  });
  test('bad values name the path', () => {
    expect(refused({ ...base(), trustProxy: ['10.0.0.0/33'] })).toMatch(/trustProxy\[0\]: not an IP address/);
    expect(refused({ ...base(), limits: { freePerDay: -1 } })).toMatch(/limits\.freePerDay: /);
    expect(refused({ ...base(), credentials: { accept: ['cookie'] } })).toMatch(/credentials\.accept\[0\]: /);
    expect(refused({ ...base(), hosts: [{ adapter: 'native' }] })).toMatch(/hosts\[0\]: a host needs a name/);
  });
  test('${ENV} is substituted; a missing variable is named', () => {
    const doc = { ...base(), keyPepper: '${PEPPER}' };
    expect(validateConfig(doc, F, { PEPPER: 'q'.repeat(20) }).keyPepper).toBe('q'.repeat(20));
    expect(refused(doc)).toBe('config/x.yaml: keyPepper: environment variable PEPPER is not set');
  });
  test('loads a YAML file and reports bad YAML with the file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'policy: [\n');
    expect(() => loadConfigFile(file, {})).toThrow(new RegExp(`^${file}: not valid YAML`));
  });
});

describe('dashboard section (issue 6)', () => {
  const dashboard = () => ({
    listen: { host: '127.0.0.1', port: 0 },
    publicUrl: 'http://127.0.0.1:8082',
    sessionSecret: '${GEOGATE_DASHBOARD_SECRET}',
    payments: { provider: 'test' },
  });
  const SECRET = { GEOGATE_DASHBOARD_SECRET: 's'.repeat(40) };

  test('is optional: absent compiles to null', () => {
    expect(compileConfig(validateConfig(base(), F, {}), F).dashboard).toBeNull();
  });
  test('compiles with the session secret read from ${GEOGATE_DASHBOARD_SECRET}', () => {
    const c = compileConfig(validateConfig({ ...base(), dashboard: dashboard() }, F, SECRET), F);
    expect(c.dashboard?.sessionSecret).toBe('s'.repeat(40));
    expect(c.dashboard?.listen).toEqual({ host: '127.0.0.1', port: 0 });
    expect(c.dashboard?.payments?.provider).toBe('test');
  });
  test('a missing session secret variable is named', () => {
    expect(refused({ ...base(), dashboard: dashboard() })).toBe(
      'config/x.yaml: dashboard.sessionSecret: environment variable GEOGATE_DASHBOARD_SECRET is not set',
    );
  });
  test('bad dashboard fields are refused naming their path', () => {
    const bad = (patch: Record<string, unknown>) =>
      refused({ ...base(), dashboard: { ...dashboard(), ...patch } }, SECRET);
    expect(bad({ sessionSecret: 'short' })).toBe(
      'config/x.yaml: dashboard.sessionSecret: the session secret needs at least 32 characters',
    );
    expect(bad({ publicUrl: 'ftp://x' })).toBe('config/x.yaml: dashboard.publicUrl: not an http(s) URL');
    expect(bad({ listen: { port: 70000 } })).toMatch(/^config\/x\.yaml: dashboard\.listen\.port: /);
    expect(bad({ payments: { provider: 'paypal' } })).toMatch(
      /^config\/x\.yaml: dashboard\.payments\.provider: /,
    );
    expect(bad({ payments: { provider: 'stripe' } })).toMatch(
      /^config\/x\.yaml: dashboard\.payments\.stripe: provider "stripe" needs/,
    );
    expect(bad({ colour: 'blue' })).toBe('config/x.yaml: dashboard.colour: unknown key');
  });
});

describe('config compilation', () => {
  test('limits override the rule set, CIDRs are parsed, hosts mapped, default host is the first without port', () => {
    const c = compileConfig(
      validateConfig(
        {
          ...base(),
          policy: 'B',
          limits: { freePerDay: 10 },
          trustProxy: ['127.0.0.1/32'],
          credentials: { accept: ['x-api-key', 'bearer'] },
          hosts: [
            { port: 0, adapter: 'native', anonymous: false },
            { name: 'API.Example', adapter: 'native' },
          ],
        },
        F,
        {},
      ),
      F,
    );
    expect(c.rules.name).toBe('B');
    expect(c.rules.limits.freePerDay).toBe(10);
    expect(c.rules.limits.anonymousIpv6Prefix).toBe(40);
    expect(c.rules.credentialPositions).toEqual(['x-api-key', 'bearer']);
    expect(c.trustProxy[0]?.prefix).toBe(32);
    expect(c.defaultHost?.label).toBe('API.Example');
    expect(c.hostsByName.get('api.example')?.adapter.name).toBe('native');
    expect(c.hosts[0]?.label).toBe('port:0');
  });
});

describe('shipped example configs', () => {
  test.each(['example-a.yaml', 'example-b.yaml'])('%s validates', (name) => {
    const file = join(__dirname, '../../../config', name);
    const env = { GEOGATE_KEY_PEPPER: 'x'.repeat(32), GEOGATE_DASHBOARD_SECRET: 'd'.repeat(43) };
    const c = compileConfig(loadConfigFile(file, env), file);
    expect(c.hosts.length).toBeGreaterThan(0);
    // Issue 6: the examples serve the dashboard on 127.0.0.1:8082 (npm start keeps the session secret).
    expect(c.dashboard?.listen).toEqual({ host: '127.0.0.1', port: 8082 });
    expect(c.dashboard?.sessionSecret).toBe('d'.repeat(43));
  });
});

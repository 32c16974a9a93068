/**
 * Issue 14 item 6: config messages in plain words, every missing environment variable in one pass, host names and
 * ports used twice refused naming both places.
 */
import { validateConfig } from '../../../gateway/config/load';
import { validateConfig as validateAppConfig } from '../../../runtime/config';

const F = 'config/x.yaml';
const base = (): Record<string, unknown> => ({
  policy: 'A',
  backend: { url: 'http://127.0.0.1:8090' },
  store: { kind: 'embedded', path: '/tmp/x.db' },
  keyPepper: 'p'.repeat(20),
  hosts: [{ name: 'localhost', adapter: 'native' }],
});

/** The refusal message of a document. */
function refused(doc: unknown, env: NodeJS.ProcessEnv = {}): string {
  try {
    validateConfig(doc, F, env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
}

/** No library wording and no decision numbers in any line. */
function expectPlain(message: string): void {
  expect(message).not.toMatch(
    /Invalid input|Invalid option|Too (big|small)|expected \w+, received|discriminator/,
  );
  expect(message).not.toMatch(/\bD\d+\b/);
}

describe('config messages in plain words', () => {
  it.each([
    [{ listen: { port: '8080' } }, 'listen.port: must be a number, but the file has "8080" (text)'],
    [{ listen: { port: 1.5 } }, 'listen.port: must be a whole number, but the file has 1.5'],
    [{ listen: { port: 70000 } }, 'listen.port: must be at most 65535'],
    [{ limits: { freePerDay: -1 } }, 'limits.freePerDay: must be at least 0'],
    [{ hosts: [] }, 'hosts: must be at least 1 entry'],
    [{ hosts: 'localhost' }, 'hosts: must be a list, but the file has "localhost" (text)'],
    [{ onStoreFailure: 'maybe' }, 'onStoreFailure: must be "closed" or "open", not "maybe" (text)'],
    [{ store: { path: 'x' } }, 'store.kind: must be "embedded" or "shared"'],
    [{ store: { kind: 'shared' } }, 'store.postgres: required, but missing'],
    [
      { log: { level: 'loud' } },
      'log.level: must be "fatal", "error", "warn", "info", "debug" or "silent", not "loud" (text)',
    ],
    [{ log: { format: 'xml' } }, 'log.format: must be "json" or "pretty", not "xml" (text)'],
  ])('%j → %s', (patch, line) => {
    const message = refused({ ...base(), ...patch });
    expect(message.split('\n')).toContain(`${F}: ${line}`);
    expectPlain(message);
  });

  it('never echoes the value of a secret field', () => {
    const message = refused({ ...base(), keyPepper: 1234567890123456 });
    expect(message).toBe(
      `${F}: keyPepper: must be text, but the file has a value (not shown: a secret field)`,
    );
    expect(message).not.toContain('1234567');
  });

  it('a missing rule set says what to write, without a decision number', () => {
    const { policy: _p, ...rest } = base();
    const message = refused(rest);
    expect(message).toBe(`${F}: policy: required: "A" or "B" (there is no default: choose the rule set)`);
    expectPlain(message);
  });
});

describe('environment variables', () => {
  it('every missing variable is reported in one pass, each with its place', () => {
    const doc = {
      ...base(),
      keyPepper: '${PEPPER}',
      backend: { url: '${BACKEND_URL}' },
      admin: { token: '${ADMIN_TOKEN}', listen: { host: '${ADMIN_HOST:-127.0.0.1}', port: 8081 } },
    };
    expect(refused(doc).split('\n')).toEqual([
      `${F}: backend.url: environment variable BACKEND_URL is not set`,
      `${F}: keyPepper: environment variable PEPPER is not set`,
      `${F}: admin.token: environment variable ADMIN_TOKEN is not set`,
    ]);
  });
  it('an empty variable counts as missing; a default covers it', () => {
    const doc = { ...base(), keyPepper: '${PEPPER}' };
    expect(refused(doc, { PEPPER: '' })).toBe(`${F}: keyPepper: environment variable PEPPER is not set`);
    expect(
      validateConfig({ ...base(), listen: { host: '${H:-0.0.0.0}', port: 1 } }, F, { H: '' }).listen.host,
    ).toBe('0.0.0.0');
  });
});

describe('host names and ports used twice', () => {
  it('refuses a host name used twice (case-insensitively), naming both entries', () => {
    const doc = {
      ...base(),
      hosts: [
        { name: 'api.example.com', adapter: 'native' },
        { name: 'other.example.com', adapter: 'native' },
        { name: 'API.example.com', adapter: 'nominatim' },
      ],
    };
    expect(refused(doc)).toBe(
      `${F}: hosts[2].name: the host name "API.example.com" is already used by hosts[0].name ` +
        '(host names are matched without regard to case; the second entry could never be reached)',
    );
  });

  it('refuses two hosts on one port, naming both', () => {
    const doc = {
      ...base(),
      hosts: [
        { name: 'a', adapter: 'native', port: 9001 },
        { port: 9001, adapter: 'nominatim' },
      ],
    };
    expect(refused(doc)).toBe(
      `${F}: hosts[1].port: port 9001 is already used by hosts[0].port (127.0.0.1:9001); give each listener its own port`,
    );
  });

  it('refuses a host port equal to the admin or dashboard port, and a wildcard address clashing with loopback', () => {
    const onAdmin = { ...base(), hosts: [{ port: 8081, adapter: 'native' }] };
    expect(refused(onAdmin)).toMatch(
      /^config\/x\.yaml: hosts\[0\]\.port: port 8081 is already used by admin\.listen\.port/,
    );
    const dashboard = {
      listen: { host: '0.0.0.0', port: 8080 },
      publicUrl: 'http://x',
      sessionSecret: 's'.repeat(40),
      payments: { provider: 'test' },
    };
    expect(refused({ ...base(), dashboard })).toBe(
      `${F}: dashboard.listen.port: port 8080 is already used by listen.port (127.0.0.1:8080); give each listener its own port`,
    );
  });

  it('accepts the same port on two distinct addresses, and port 0 (any free port) many times', () => {
    const doc = {
      ...base(),
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.2', port: 0 } },
      hosts: [
        { name: 'a', adapter: 'native', port: 0 },
        { name: 'b', adapter: 'native', port: 0 },
      ],
    };
    expect(validateConfig(doc, F, {}).hosts).toHaveLength(2);
    const split = {
      ...base(),
      listen: { host: '127.0.0.1', port: 8080 },
      admin: { listen: { host: '127.0.0.2', port: 8080 } },
    };
    expect(validateConfig(split, F, {}).admin.listen.port).toBe(8080);
  });

  it('checks the crypto top-up section field by field (D32)', () => {
    const dashboard = (btcpay: Record<string, unknown>) => ({
      ...base(),
      dashboard: {
        listen: { host: '127.0.0.1', port: 8082 },
        publicUrl: 'http://x',
        sessionSecret: 's'.repeat(40),
        payments: { provider: 'test', crypto: { provider: 'btcpay', btcpay } },
      },
    });
    const refusedApp = (doc: unknown): string => {
      try {
        validateAppConfig(doc, F, {});
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('the config was accepted');
    };
    const good = {
      url: 'https://btcpay.example.com',
      storeId: 'store1',
      apiKey: 'k',
      webhookSecret: 'w',
      priceCurrency: 'EUR',
    };
    const ok = validateAppConfig(dashboard(good), F, {}) as {
      dashboard?: { payments?: { crypto?: unknown } };
    };
    expect(ok.dashboard?.payments?.crypto).toEqual({
      provider: 'btcpay',
      btcpay: { ...good, unitsPerMinorUnit: 100 },
    });
    expect(refusedApp(dashboard({ ...good, storeId: undefined }))).toMatch(
      /dashboard\.payments\.crypto\.btcpay\.storeId/,
    );
    expect(refusedApp(dashboard({ ...good, priceCurrency: 'eur' }))).toMatch(
      /dashboard\.payments\.crypto\.btcpay\.priceCurrency/,
    );
    expect(refusedApp(dashboard({ ...good, url: 'ftp://x' }))).toMatch(
      /dashboard\.payments\.crypto\.btcpay\.url/,
    );
    // The API key's value never appears in a refusal.
    expect(refusedApp(dashboard({ ...good, apiKey: 'secret-api-key-value', extra: 1 }))).not.toContain(
      'secret-api-key-value',
    );
  });
});

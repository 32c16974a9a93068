/** Issue 13 item 9: server limits in the config: defaults, per-listener overrides, refusals with their path. */
import { compileConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';
import { DEFAULT_LIMITS } from '../../../gateway/net/server-limits';

const base = {
  policy: 'A',
  backend: { url: 'http://127.0.0.1:8090' },
  store: { kind: 'embedded', path: '/tmp/x.db' },
  keyPepper: 'pepper-0123456789abcdef',
  hosts: [{ name: 'localhost', adapter: 'native' }],
};
const compile = (extra: Record<string, unknown>) =>
  compileConfig(validateConfig({ ...base, ...extra }, 'x.yaml', {}), 'x.yaml');

describe('serverLimits', () => {
  test('absent: every listener has the safe defaults; trustProxyHeader defaults to x-forwarded-for', () => {
    const c = compile({});
    expect(c.serverLimits).toEqual(DEFAULT_LIMITS);
    expect(c.trustProxyHeader).toBe('x-forwarded-for');
  });
  test('overrides apply to their listener only', () => {
    const c = compile({ serverLimits: { main: { maxConnections: 10 }, admin: { headersTimeoutMs: 2000 } } });
    expect(c.serverLimits.main).toEqual({ ...DEFAULT_LIMITS.main, maxConnections: 10 });
    expect(c.serverLimits.admin).toEqual({ ...DEFAULT_LIMITS.admin, headersTimeoutMs: 2000 });
    expect(c.serverLimits.dashboard).toEqual(DEFAULT_LIMITS.dashboard);
  });
  test.each([
    [
      { main: { headersTimeoutMs: 40_000 } },
      /serverLimits\.main.*headersTimeoutMs cannot exceed requestTimeoutMs/,
    ],
    [{ admin: { maxConnections: 0 } }, /serverLimits\.admin\.maxConnections/],
    [{ main: { keepAlive: 1 } }, /serverLimits\.main/],
    [{ edge: {} }, /serverLimits/],
  ])('%j is refused with its path', (serverLimits, message) => {
    expect(() => compile({ serverLimits })).toThrow(message);
  });
  test('trustProxyHeader accepts only the two headers', () => {
    expect(compile({ trustProxyHeader: 'forwarded' }).trustProxyHeader).toBe('forwarded');
    expect(() => compile({ trustProxyHeader: 'x-real-ip' })).toThrow(/trustProxyHeader/);
  });
});

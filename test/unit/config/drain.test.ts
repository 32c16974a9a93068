/** Issue 14 item 4: the `drain:` section (defaults 5 s delay, 30 s bound) and its refusals naming the field. */
import { compileConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';

const F = 'config/x.yaml';
const base = (drain?: unknown): Record<string, unknown> => ({
  policy: 'A',
  backend: { url: 'http://127.0.0.1:8090' },
  store: { kind: 'embedded', path: '/tmp/x.db' },
  keyPepper: 'p'.repeat(20),
  hosts: [{ name: 'localhost', adapter: 'native' }],
  ...(drain === undefined ? {} : { drain }),
});

const compiled = (drain?: unknown) => compileConfig(validateConfig(base(drain), F, {}), F).drain;

test('defaults: 5 s before the listeners stop accepting, 30 s for in-flight requests', () => {
  expect(compiled()).toEqual({ delayMs: 5000, timeoutMs: 30000 });
  expect(compiled({ delayMs: 0 })).toEqual({ delayMs: 0, timeoutMs: 30000 });
  expect(compiled({ delayMs: 250, timeoutMs: 1000 })).toEqual({ delayMs: 250, timeoutMs: 1000 });
});

test.each([
  [{ delayMs: -1 }, 'drain.delayMs'],
  [{ delayMs: 1.5 }, 'drain.delayMs'],
  [{ timeoutMs: 0 }, 'drain.timeoutMs'],
  [{ timeoutMs: 600_001 }, 'drain.timeoutMs'],
  [{ delayMs: '5s' }, 'drain.delayMs'],
  [{ grace: 5 }, 'drain'],
])('refused: %j names %s', (drain, field) => {
  expect(() => validateConfig(base(drain), F, {})).toThrow(field);
});

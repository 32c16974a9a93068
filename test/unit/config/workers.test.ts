/** Issue 12: `workers:` (default 1: no cluster), a count up to 64, or `auto` (one per CPU); refusals name the field. */
import { availableParallelism } from 'node:os';
import { compileConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';

const F = 'config/x.yaml';
const base = (workers?: unknown): Record<string, unknown> => ({
  policy: 'A',
  backend: { url: 'http://127.0.0.1:8090' },
  store: { kind: 'embedded', path: '/tmp/x.db' },
  keyPepper: 'p'.repeat(20),
  hosts: [{ name: 'localhost', adapter: 'native' }],
  ...(workers === undefined ? {} : { workers }),
});

const compiled = (workers?: unknown) => compileConfig(validateConfig(base(workers), F, {}), F).workers;

test('default 1; a count is kept; auto is one per CPU', () => {
  expect(compiled()).toBe(1);
  expect(compiled(2)).toBe(2);
  expect(compiled('auto')).toBe(availableParallelism());
});

test.each([[0], [-1], [1.5], [65], ['two'], ['AUTO']])('refused: %j names workers', (workers) => {
  expect(() => validateConfig(base(workers), F, {})).toThrow('workers');
});

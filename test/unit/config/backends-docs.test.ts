/** Every YAML example of docs/backends.md is a valid config fragment (completed with the required top-level keys). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { compileConfig, validateConfig } from '../../../runtime/config';

const doc = readFileSync(join(__dirname, '../../../docs/backends.md'), 'utf8');
const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const ENV = { UPSTREAM_KEY: 'u', K: 'k', UPSTREAM_GOOGLE_KEY: 'g' };

test('docs/backends.md has the examples of every kind', () => {
  expect(blocks.length).toBeGreaterThanOrEqual(6);
  for (const kind of ['nominatim', 'photon', 'pelias', 'http'])
    expect(blocks.some((b) => b.includes(`kind: ${kind}`))).toBe(true);
});

test.each(blocks.map((b, i) => [i, b]))('example %i validates and compiles', (_i, text) => {
  const fragment = parse(text) as Record<string, unknown>;
  const config = {
    policy: 'A',
    store: { kind: 'embedded', path: '/tmp/x.db' },
    keyPepper: 'p'.repeat(20),
    ...fragment,
  };
  const c = compileConfig(validateConfig(config, 'docs/backends.md', ENV), 'docs/backends.md');
  expect(c.hosts.length).toBeGreaterThan(0);
});

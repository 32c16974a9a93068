/**
 * Burst limits of a key through the real `geogate` process: `keys burst KEY_ID --per-second N --per-minute N` sets
 * them (stored with the key), no option shows them, `--clear` removes them; 0, negative and non-numeric values are a
 * usage error or the admin API's 400 naming the field, never a crash. Needs `npm run build:ts` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../../gateway/core/paths';
import { RULE_SET_B } from '../../../gateway/policy/ruleset';
import { runNode, useAdminListener, type Run } from '../harness';

const CLI = join(repoRoot(), 'dist', 'gateway', 'cli', 'main.js');
const TOKEN = 'cli-e2e-admin-token-0123456789';
const ADMIN = { token: TOKEN, pepper: 'cli-pepper', start: Date.parse('2026-01-31T10:00:00.000Z') };

jest.setTimeout(120_000);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" before the CLI e2e tests`);
});

const api = useAdminListener(RULE_SET_B, ADMIN);
const cli = (args: string[]): Promise<Run> =>
  runNode(CLI, args, {
    PATH: process.env.PATH ?? '',
    GEOGATE_ADMIN_URL: api.url,
    GEOGATE_ADMIN_TOKEN: TOKEN,
  });

test("keys burst sets, shows and clears a key's own burst limits; bad values are refused naming the field", async () => {
  const acc = await cli(['accounts', 'create', '--email', 'burst@example.com', '--json']);
  expect(acc.code).toBe(0);
  const account = JSON.parse(acc.stdout).id as string;
  const created = await cli(['keys', 'create', account, '--label', 'prod']);
  const id = /^Key\s+(key_\S+)$/m.exec(created.stdout)?.[1] ?? '';
  expect(id).not.toBe('');

  const set = await cli(['keys', 'burst', id, '--per-second', '20', '--per-minute', '600']);
  expect([set.code, set.stderr]).toEqual([0, '']);
  expect(set.stdout).toMatch(/^Per second\s+20 requests$/m);
  expect((await api.store.getKey(id))?.burst).toEqual({ perSecond: 20, perMinute: 600 });

  const shown = await cli(['keys', 'burst', id]);
  expect(shown.stdout).toMatch(/^Per minute\s+600 requests$/m);

  const zero = await cli(['keys', 'burst', id, '--per-second', '0']);
  expect(zero.code).not.toBe(0);
  expect(zero.stderr).toMatch(/perSecond/);
  const negative = await cli(['keys', 'burst', id, '--per-minute=-5']);
  expect(negative.code).not.toBe(0);
  expect(negative.stderr).toMatch(/perMinute/);
  const words = await cli(['keys', 'burst', id, '--per-second', 'ten']);
  expect(words.code).not.toBe(0);
  expect(words.stderr).toMatch(/--per-second: "ten" is not a whole number/);
  expect((await api.store.getKey(id))?.burst).toEqual({ perSecond: 20, perMinute: 600 });

  const cleared = await cli(['keys', 'burst', id, '--clear']);
  expect(cleared.code).toBe(0);
  expect(cleared.stdout).toMatch(/^Per second\s+the deployment's key limit$/m);
  expect((await api.store.getKey(id))?.burst).toBeUndefined();
});

/**
 * D39, D40 through the real `geogate` process: `keys create --test` prints a TEST key (gk_test_…) and every listing
 * marks it TEST; `keys rotate --overlap` prints the new secret once and keeps the id; `keys expire` sets and removes
 * an end date; bad input is a usage error or the API's 400. Needs `npm run build:ts` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hashKey } from '../../../gateway/core/keys';
import { repoRoot } from '../../../gateway/core/paths';
import { RULE_SET_B } from '../../../gateway/policy/ruleset';
import { runNode, useAdminListener, type Run } from '../harness';

const CLI = join(repoRoot(), 'dist', 'gateway', 'cli', 'main.js');
const TOKEN = 'cli-e2e-admin-token-0123456789';
const PEPPER = 'cli-pepper';
const START = Date.parse('2026-01-31T10:00:00.000Z');
const ADMIN = { token: TOKEN, pepper: PEPPER, start: START };

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

test('test keys are created and shown as TEST; rotation prints the new secret once; end dates are set and removed', async () => {
  const acc = await cli(['accounts', 'create', '--email', 'ci@example.com', '--json']);
  expect(acc.code).toBe(0);
  const account = JSON.parse(acc.stdout).id as string;

  const test = await cli(['keys', 'create', account, '--test', '--label', 'ci']);
  expect(test.code).toBe(0);
  expect(test.stdout).toContain('New TEST API key');
  const testKey = /^\s+(gk_test_[0-9A-Za-z]{49})$/m.exec(test.stdout)?.[1] ?? '';
  expect((await api.store.findKeyByHash(hashKey(testKey, PEPPER)))?.key.test).toBe(true);
  const live = await cli(['keys', 'create', account, '--label', 'prod', '--expires', '2026-03-01T00:00:00Z']);
  expect(live.code).toBe(0);
  expect(live.stdout).toMatch(/^Expires\s+2026-03-01T00:00:00.000Z$/m);
  const liveKey = /^\s+(gk_[0-9A-Za-z]{49})$/m.exec(live.stdout)?.[1] ?? '';
  const liveId = /^Key\s+(key_\S+)$/m.exec(live.stdout)?.[1] ?? '';

  const list = await cli(['keys', 'list', account]);
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^ID\s+PREFIX\s+LABEL\s+MODE/m);
  expect(list.stdout).toMatch(/gk_test_\S+\s+ci\s+TEST/);
  expect(list.stdout).toMatch(/prod\s+live/);
  expect((await cli(['accounts', 'show', account])).stdout).toMatch(/ci\s+TEST/);

  const rotated = await cli(['keys', 'rotate', liveId, '--overlap', '12h']);
  expect(rotated.code).toBe(0);
  const fresh = /^\s+(gk_[0-9A-Za-z]{49})$/m.exec(rotated.stdout)?.[1] ?? '';
  expect(fresh).not.toBe(liveKey);
  expect(rotated.stdout).toMatch(/^Old secret until\s+2026-01-31T22:00:00.000Z$/m);
  expect((await api.store.findKeyByHash(hashKey(fresh, PEPPER)))?.key.id).toBe(liveId);
  expect((await api.store.findKeyByHash(hashKey(liveKey, PEPPER)))?.secretUntil).toBe(START + 12 * 3_600_000);
  const shown = await cli(['keys', 'show', liveId]);
  expect(shown.stdout).not.toContain(fresh);
  expect(shown.stdout).toMatch(/^Rotated\s+2026-01-31T10:00:00.000Z$/m);

  const bad = await cli(['keys', 'rotate', liveId, '--overlap', 'soon']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--overlap');
  const tooLong = await cli(['keys', 'rotate', liveId, '--overlap', '8d']);
  expect(tooLong.code).not.toBe(0);
  expect(tooLong.stderr).toContain('overlapSeconds');

  const never = await cli(['keys', 'expire', liveId, '--never']);
  expect(never.code).toBe(0);
  expect(never.stdout).toMatch(/^Expires\s+-$/m);
  expect((await cli(['keys', 'expire', liveId])).code).toBe(2);
  const at = await cli(['keys', 'expire', liveId, '--at', '2026-02-02T00:00:00Z']);
  expect(at.stdout).toMatch(/^Expires\s+2026-02-02T00:00:00.000Z$/m);
});

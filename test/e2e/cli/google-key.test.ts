/**
 * D28 (issue 16 item 3) through the real `geogate` process: `keys create` and `packages buy` print the new key once
 * with its Google-shaped presentation (`AIza` + the same secret), which the store knows as the same key (one hash).
 * Needs `npm run build:ts` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hashKey } from '../../../gateway/core/keys';
import { repoRoot } from '../../../gateway/core/paths';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import { runNode, useAdminListener, type Run } from '../harness';

const CLI = join(repoRoot(), 'dist', 'gateway', 'cli', 'main.js');
const TOKEN = 'cli-e2e-admin-token-0123456789';
const PEPPER = 'cli-pepper';
const ADMIN = { token: TOKEN, pepper: PEPPER, start: Date.parse('2026-01-31T10:00:00.000Z') };

jest.setTimeout(120_000);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" before the CLI e2e tests`);
});

const api = useAdminListener(RULE_SET_A, ADMIN);
const cli = (args: string[], stdin = ''): Promise<Run> =>
  runNode(
    CLI,
    args,
    { PATH: process.env.PATH ?? '', GEOGATE_ADMIN_URL: api.url, GEOGATE_ADMIN_TOKEN: TOKEN },
    stdin,
  );

/** The gk_ key and its AIza line as printed, and whether the store finds both as one key. */
async function printedKeys(out: string): Promise<{ key: string; google: string }> {
  const key = /^\s+(gk_[0-9A-Za-z]{49})$/m.exec(out)?.[1];
  const google = /^\s+(AIza[0-9A-Za-z]{49})$/m.exec(out)?.[1];
  expect(key).toBeDefined();
  expect(google).toBe(`AIza${(key as string).slice(3)}`);
  const byKey = await api.store.findKeyByHash(hashKey(key as string, PEPPER));
  const byGoogle = await api.store.findKeyByHash(hashKey(google as string, PEPPER));
  expect(byGoogle?.key.id).toBeDefined();
  expect(byGoogle?.key.id).toBe(byKey?.key.id);
  return { key: key as string, google: google as string };
}

test('keys create and packages buy print the AIza presentation once with the key; keys show never does', async () => {
  const acc = await cli(
    ['accounts', 'create', '--email', 'maps@example.com', '--name', 'Maps', '--password-stdin', '--json'],
    'correct horse battery\n',
  );
  expect(acc.code).toBe(0);
  const id = JSON.parse(acc.stdout).id as string;

  const created = await cli(['keys', 'create', id, '--label', 'maps']);
  expect(created.code).toBe(0);
  expect(created.stdout).toContain("The same key for Google's client libraries");
  const { key, google } = await printedKeys(created.stdout);

  expect((await cli(['credit', id, '60'])).code).toBe(0);
  const pkg = await cli(['packages', 'buy', id]);
  expect(pkg.code).toBe(0);
  await printedKeys(pkg.stdout);

  const keyId = /^Key\s+(key_\S+)$/m.exec(created.stdout)?.[1] ?? '';
  const shown = await cli(['keys', 'show', keyId]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).not.toContain(google);
  expect(shown.stdout).not.toContain(key);
});

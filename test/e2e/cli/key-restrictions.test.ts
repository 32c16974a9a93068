/**
 * `geogate keys rename`, `keys restrict` and `keys restrictions` (issue 15 item 4): the real CLI process against a
 * real admin listener. Needs `npm run build:ts` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RULE_SET_B } from '../../../gateway/policy/ruleset';
import { repoRoot } from '../../../gateway/core/paths';
import { runNode, useAdminListener } from '../harness';

const CLI = join(repoRoot(), 'dist', 'gateway', 'cli', 'main.js');
const TOKEN = 'cli-e2e-admin-token-0123456789';
const ADMIN = { token: TOKEN, pepper: 'cli-pepper', start: Date.parse('2026-01-31T10:00:00.000Z') };

jest.setTimeout(120_000);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" before the CLI e2e tests`);
});

describe('geogate keys rename / restrict / restrictions (rule set B)', () => {
  const api = useAdminListener(RULE_SET_B, ADMIN);
  const cli = (args: string[]) =>
    runNode(
      CLI,
      args,
      { PATH: process.env.PATH ?? '', GEOGATE_ADMIN_URL: api.url, GEOGATE_ADMIN_TOKEN: TOKEN },
      '',
    );

  it('renames, restricts (canonical), shows, refuses bad input naming the field, and clears', async () => {
    const acc = await cli(['accounts', 'create', '--email', 'web@example.com']);
    const accountId = /^Account\s+(acc_\S+)$/m.exec(acc.stdout)?.[1] ?? '';
    const created = await cli(['keys', 'create', accountId, '--label', 'site', '--json']);
    const keyId = JSON.parse(created.stdout).id as string;

    const renamed = await cli(['keys', 'rename', keyId, '--label', 'shop site']);
    expect(renamed.code).toBe(0);
    expect(renamed.stdout).toMatch(/^Label\s+shop site$/m);
    expect((await cli(['keys', 'rename', keyId])).code).toBe(2);
    expect((await cli(['keys', 'rename', keyId, '--no-label'])).stdout).toMatch(/^Label\s+-?$/m);

    const set = await cli([
      'keys',
      'restrict',
      keyId,
      '--referrers',
      'HTTPS://Shop.Example.com, *.example.org',
      '--cidrs',
      '203.0.113.7/24',
    ]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('https://shop.example.com\n*.example.org');
    expect(set.stdout).toContain('Allowed addresses\n203.0.113.0/24');
    expect((await api.store.getKey(keyId))?.restrictions).toEqual({
      referrers: ['https://shop.example.com', '*.example.org'],
      cidrs: ['203.0.113.0/24'],
    });
    const shown = await cli(['keys', 'restrictions', keyId, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ cidrs: ['203.0.113.0/24'] });

    const bad = await cli(['keys', 'restrict', keyId, '--referrers', 'ok.example,ftp://x.example']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('referrers[1]');

    const cleared = await cli(['keys', 'restrict', keyId]);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(/Allowed pages \(Origin, else Referer\)\nany/);
    expect((await api.store.getKey(keyId))?.restrictions).toBeUndefined();
  });
});

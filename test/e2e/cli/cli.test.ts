/**
 * The real `geogate` process (dist/gateway/cli/main.js) against a real admin listener (embedded store, temp file).
 * Needs `npm run build:ts` first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RULE_SET_A, RULE_SET_B, type RuleSet } from '../../../gateway/policy/ruleset';
import { repoRoot } from '../../../gateway/core/paths';
import { runNode, startAdminListener, useAdminListener, type Run } from '../harness';

const CLI = join(repoRoot(), 'dist', 'gateway', 'cli', 'main.js');
const TOKEN = 'cli-e2e-admin-token-0123456789';
const START = Date.parse('2026-01-31T10:00:00.000Z');

const ADMIN = { token: TOKEN, pepper: 'cli-pepper', start: START };
const listen = (rules: RuleSet) => startAdminListener(rules, ADMIN);

/** Run the CLI process (asynchronously: the admin listener lives in this process). */
function runCli(
  args: string[],
  opts: { url?: string; token?: string | null; stdin?: string } = {},
): Promise<Run> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  if (opts.url !== undefined) env.GEOGATE_ADMIN_URL = opts.url;
  if (opts.token !== null) env.GEOGATE_ADMIN_TOKEN = opts.token ?? TOKEN;
  return runNode(CLI, args, env, opts.stdin ?? '');
}

jest.setTimeout(120_000);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" before the CLI e2e tests`);
});

describe('geogate CLI, rule set A', () => {
  const api = useAdminListener(RULE_SET_A, ADMIN);
  const cli = (args: string[], opts: { stdin?: string; token?: string | null } = {}) =>
    runCli(args, { url: api.url, ...opts });
  const json = async (args: string[], opts: { stdin?: string } = {}) => {
    const r = await cli([...args, '--json'], opts);
    if (r.code !== 0) throw new Error(`geogate ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  it('creates an account with the password from stdin, in table mode', async () => {
    const r = await cli(
      ['accounts', 'create', '--email', 'ada@example.com', '--name', 'Ada Lovelace', '--password-stdin'],
      {
        stdin: 'correct horse battery\n',
      },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Account\s+acc_/m);
    expect(r.stdout).toMatch(/^E-mail\s+ada@example\.com$/m);
    expect(r.stdout).toMatch(/^Balance\s+0\.0000 EUR$/m);
    expect(r.stdout).toMatch(/^Plan\s+pay-per-use, 0 active Unlimited package\(s\)$/m);
    const stored = await api.store.findAccountByEmail('ada@example.com');
    expect(stored?.passwordHash).toMatch(/^scrypt\$/);
  });

  it('runs the whole account life in --json and table modes; the key is printed only at creation', async () => {
    const acc = await json(
      ['accounts', 'create', '--email', 'bob@example.com', '--name', 'Bob', '--password-stdin'],
      {
        stdin: 'another long password',
      },
    );
    expect(acc).toMatchObject({ email: 'bob@example.com', balance: '0.0000', status: 'active' });

    expect((await json(['accounts', 'find', 'BOB@example.com'])).id).toBe(acc.id);

    const credited = await json(['credit', acc.id, '60.5', '--idempotency-key', 'order-7']);
    expect(credited).toMatchObject({ balance: '60.5000', replayed: false });
    const replay = await cli(['credit', acc.id, '60.5', '--idempotency-key', 'order-7']);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/^Credited\s+60\.5000 EUR \(replayed/m);
    expect(replay.stdout).toMatch(/^Balance\s+60\.5000 EUR$/m);
    const mismatch = await cli(['credit', acc.id, '61', '--idempotency-key', 'order-7']);
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain('409');

    const created = await cli(['keys', 'create', acc.id, '--label', 'prod']);
    expect(created.code).toBe(0);
    const keyValue = /^\s+(gk_[0-9A-Za-z]{49})$/m.exec(created.stdout)?.[1];
    expect(keyValue).toBeDefined();
    expect(created.stdout).toContain('shown only this once');
    const keyId = /^Key\s+(key_\S+)$/m.exec(created.stdout)?.[1] ?? '';

    const pkg = await json(['packages', 'buy', acc.id]);
    expect(pkg).toMatchObject({
      kind: 'unlimited',
      packageUntil: '2026-02-28T10:00:00.000Z',
      balance: '10.5000',
    });
    expect(pkg.key).toMatch(/^gk_/);
    const poor = await cli(['packages', 'buy', acc.id]);
    expect(poor.code).toBe(1);
    expect(poor.stderr).toMatch(
      /402 Insufficient balance: the package costs 50\.0000 EUR; the balance is 10\.5000 EUR/,
    );

    const shown = await cli(['accounts', 'show', acc.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^Balance\s+10\.5000 EUR$/m);
    expect(shown.stdout).toContain('Unlimited packages');
    expect(shown.stdout).toMatch(new RegExp(`^${keyId}\\s+gk_\\S{5}\\s+prod\\s+live\\s+payg\\s+active`, 'm'));

    const keyShow = await cli(['keys', 'show', keyId]);
    expect(keyShow.stdout).toMatch(/^IP slots \(0 of 2 in use\)$/m);
    const pkgKey = await json(['keys', 'show', pkg.id]);
    expect(pkgKey).toMatchObject({ kind: 'unlimited', slotCapacity: 3, slots: [] });

    const revoked = await cli(['keys', 'revoke', keyId]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/^Status\s+revoked$/m);
    const again = await cli(['keys', 'revoke', keyId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('409 Key already revoked');

    const ledger = await cli(['ledger', acc.id]);
    expect(ledger.stdout).toMatch(/^ID\s+KIND\s+AMOUNT/m);
    expect(ledger.stdout).toMatch(/\spackage\s+-50\.0000\s/);
    expect((await json(['ledger', acc.id, '--limit', '1'])).entries).toHaveLength(1);

    const usage = await cli(['usage', acc.id, '--from', '2026-01-30', '--to', '2026-01-31']);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^2026-01-30\s+account\s+0\s+0\s+0$/m);
    expect((await json(['usage', acc.id])).days).toHaveLength(30);

    expect((await json(['accounts', 'suspend', acc.id])).status).toBe('suspended');
    const reinstated = await cli(['accounts', 'reinstate', acc.id]);
    expect(reinstated.stdout).toMatch(/^Status\s+active$/m);

    const all = [replay, mismatch, poor, shown, keyShow, revoked, again, ledger, usage, reinstated];
    for (const r of all) {
      expect(r.stdout + r.stderr).not.toContain(keyValue);
      expect(r.stdout + r.stderr).not.toContain(pkg.key);
    }
  });

  it('exits 1 with the problem title, detail and field when the API refuses', async () => {
    const r = await cli(
      ['accounts', 'create', '--email', 'not-an-email', '--name', 'X', '--password-stdin'],
      {
        stdin: 'correct horse battery',
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('400 Invalid parameter [email]: email: is not a valid e-mail address');
    const missing = await cli(['accounts', 'show', 'acc_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404 Not found');
    const jsonErr = await cli(['accounts', 'show', 'acc_nope', '--json']);
    expect(jsonErr.code).toBe(1);
    expect(JSON.parse(jsonErr.stderr)).toMatchObject({ status: 404, code: 'not_found' });
    const planInA = await cli(['plan', 'set', 'acc_nope', 'credits']);
    expect(planInA.code).toBe(1);
    expect(planInA.stderr).toContain('404 Not available in this rule set');
  });

  it('exits 1 when the token is wrong', async () => {
    const r = await cli(['accounts', 'show', 'acc_x'], { token: 'wrong-token-wrong-token' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('401 Unauthorized');
  });
});

describe('geogate CLI, rule set B', () => {
  const api = useAdminListener(RULE_SET_B, ADMIN);
  const cli = (args: string[]) => runCli(args, { url: api.url });
  const json = async (args: string[]) => {
    const r = await cli([...args, '--json']);
    if (r.code !== 0) throw new Error(`geogate ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  it('manages credits, the plan and the whitelist', async () => {
    const created = await cli(['accounts', 'create', '--email', 'ops@example.com']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Balance\s+0 credits$/m);
    expect(created.stdout).toMatch(/^Plan\s+credits$/m);
    const id = /^Account\s+(acc_\S+)$/m.exec(created.stdout)?.[1] ?? '';

    expect(await json(['credit', id, '250'])).toMatchObject({ balance: 250 });
    const frac = await cli(['credit', id, '2.5']);
    expect(frac.code).toBe(1);
    expect(frac.stderr).toContain('[amount]');

    const plan = await cli(['plan', 'set', id, 'unlimited', '--until', '2026-12-31T23:59:59Z']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^Plan\s+unlimited until 2026-12-31T23:59:59\.000Z$/m);
    const noUntil = await cli(['plan', 'set', id, 'unlimited']);
    expect(noUntil.code).toBe(2);
    expect(noUntil.stderr).toContain('--until');
    expect((await json(['plan', 'set', id, 'credits'])).plan).toEqual({ plan: 'credits' });

    const wl = await cli(['whitelist', 'add', id, '2001:db8:1:2::/64']);
    expect(wl.code).toBe(0);
    expect(wl.stdout).toMatch(/^Address\s+2001:db8:1:2::\/64$/m);
    const entryId = /^Entry\s+(\S+)$/m.exec(wl.stdout)?.[1] ?? '';
    const wide = await cli(['whitelist', 'add', id, '2001:db8:9::/63']);
    expect(wide.code).toBe(1);
    expect(wide.stderr).toContain('[address]');
    const shown = await cli(['accounts', 'show', id]);
    expect(shown.stdout).toMatch(/^Whitelist\n.*\n\S+\s+2001:db8:1:2::\/64/m);
    expect(await json(['whitelist', 'remove', id, entryId])).toEqual({ removed: true, id: entryId });
    const gone = await cli(['whitelist', 'remove', id, entryId]);
    expect(gone.code).toBe(1);

    const key = await json(['keys', 'create', id]);
    expect(key).toMatchObject({ kind: 'payg', label: null, key: expect.stringMatching(/^gk_/) });
    const pkg = await cli(['packages', 'buy', id]);
    expect(pkg.code).toBe(1);
    expect(pkg.stderr).toContain('/plan');
  });
});

describe('geogate CLI usage errors', () => {
  it.each([
    ['no command', [] as string[], /Commands:/],
    ['an unknown command', ['frobnicate'], /unknown command "frobnicate"/],
    ['an unknown flag', ['keys', 'show', 'key_1', '--colour', 'red'], /Unknown option '--colour'/],
    ['a missing argument', ['keys', 'show'], /expected KEY_ID, got 0/],
    ['an extra argument', ['keys', 'show', 'a', 'b'], /expected KEY_ID, got 2/],
    ['a missing required option', ['accounts', 'create'], /--email is required/],
    ['a bad URL', ['keys', 'show', 'key_1', '--url', 'ftp://x'], /must be http/],
  ])('exits 2 for %s', async (_name, args, message) => {
    const r = await runCli(args, { url: 'http://127.0.0.1:9' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('exits 2 with a clear message when GEOGATE_ADMIN_TOKEN is missing', async () => {
    const r = await runCli(['accounts', 'show', 'acc_1'], { token: null });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('GEOGATE_ADMIN_TOKEN is not set');
  });

  it('exits 1 when the admin API cannot be reached', async () => {
    const dead = await listen(RULE_SET_A);
    const url = dead.url;
    await dead.close();
    const r = await runCli(['accounts', 'show', 'acc_1'], { url });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach the admin API/);
  });

  it('prints help with exit 0, for all commands and for one', async () => {
    const all = await runCli(['help'], { token: null });
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('whitelist add ACCOUNT ADDRESS');
    const one = await runCli(['help', 'credit'], { token: null });
    expect(one.stdout).toMatch(/^usage: geogate credit ACCOUNT AMOUNT \[--idempotency-key KEY\]/);
    const flag = await runCli(['keys', 'create', '--help'], { token: null });
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain('usage: geogate keys create ACCOUNT');
  });
});

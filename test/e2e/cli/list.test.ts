/**
 * Issue 14: `geogate accounts list`, `keys list` and `usage` as real processes (dist/gateway/cli/main.js) against a
 * real admin listener (embedded store, temp file), and the help texts naming what each rule set requires.
 * Needs `npm run build:ts` first.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createAdminApp } from '../../../gateway/admin/app';
import { ManualClock } from '../../../gateway/core/clock';
import { RULE_SET_B, type RuleSet } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store/index';
import type { Store } from '../../../gateway/store/ports';
import { repoRoot } from '../../../gateway/core/paths';

const CLI = join(repoRoot(), 'dist', 'gateway', 'cli', 'main.js');
const TOKEN = 'cli-e2e-admin-token-0123456789';
const START = Date.parse('2026-01-31T10:00:00.000Z');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Listener {
  url: string;
  store: Store;
  close(): Promise<void>;
}

async function listen(rules: RuleSet): Promise<Listener> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-cli-'));
  const clock = new ManualClock(START);
  const store = await createStore({ kind: 'embedded', path: join(dir, 'store.sqlite') }, { clock });
  const app = createAdminApp({
    store,
    rules,
    pepper: 'cli-pepper',
    clock,
    token: TOKEN,
    logger: pino({ level: 'silent' }),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Run the CLI process (asynchronously: the admin listener lives in this process). */
function runCli(
  args: string[],
  opts: { url?: string; token?: string | null; stdin?: string } = {},
): Promise<Run> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  if (opts.url !== undefined) env.GEOGATE_ADMIN_URL = opts.url;
  if (opts.token !== null) env.GEOGATE_ADMIN_TOKEN = opts.token ?? TOKEN;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

jest.setTimeout(120_000);

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" before the CLI e2e tests`);
});

describe('geogate listing commands, rule set B', () => {
  let api: Listener;
  const cli = (args: string[]) => runCli(args, { url: api.url });
  beforeAll(async () => {
    api = await listen(RULE_SET_B);
    for (let i = 0; i < 5; i++) await api.store.createAccount({ email: `list${i}@example.com` }, START + i);
    await api.store.createAccount({ email: 'other@example.org' }, START + 10);
  });
  afterAll(async () => api.close());

  it('accounts list: a table page with a "more" hint, --all follows every page, --json is the API answer', async () => {
    const page = await cli(['accounts', 'list', '--email-prefix', 'list', '--limit', '2']);
    expect(page.code).toBe(0);
    const lines = page.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+EMAIL\s+NAME\s+STATUS\s+BALANCE\s+CREATED$/);
    expect(lines[1]).toMatch(
      /^acc_\S+\s+list0@example\.com\s+-\s+active\s+0 credits\s+2026-01-31T10:00:00\.000Z$/,
    );
    expect(lines[3]).toMatch(/^more: add --cursor \S+ \(or use --all\)$/);
    const all = await cli(['accounts', 'list', '--email-prefix', 'list', '--limit', '2', '--all', '--json']);
    expect(all.code).toBe(0);
    const body = JSON.parse(all.stdout) as { items: { email: string }[]; nextCursor: null };
    expect(body.items.map((a) => a.email)).toEqual([0, 1, 2, 3, 4].map((i) => `list${i}@example.com`));
    expect(body.nextCursor).toBeNull();
    const desc = await cli(['accounts', 'list', '--sort', 'email', '--order', 'desc', '--json']);
    expect((JSON.parse(desc.stdout) as { items: { email: string }[] }).items[0]?.email).toBe(
      'other@example.org',
    );
  });

  it('accounts list refuses a bad filter with the API field named (exit 1) and an unknown option (exit 2)', async () => {
    const bad = await cli(['accounts', 'list', '--status', 'gone']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^geogate: 400 .*\[status\]: status: must be one of "active", "suspended"/);
    const unknown = await cli(['accounts', 'list', '--colour', 'blue']);
    expect(unknown.code).toBe(2);
  });

  it('keys list ACCOUNT and usage ACCOUNT --from --to print tables', async () => {
    const acc = await api.store.findAccountByEmail('list0@example.com');
    const id = acc?.id as string;
    await api.store.createKey(
      { accountId: id, hash: 'h1', prefix: 'gk_aaaa', label: 'web', kind: 'payg' },
      START,
    );
    const keys = await cli(['keys', 'list', id]);
    expect(keys.code).toBe(0);
    expect(keys.stdout).toMatch(/^ID\s+PREFIX\s+LABEL\s+MODE\s+KIND\s+STATUS\s+PACKAGE UNTIL\s+CREATED$/m);
    expect(keys.stdout).toMatch(
      /^key_\S+\s+gk_aaaa\s+web\s+live\s+payg\s+active\s+-\s+2026-01-31T10:00:00\.000Z$/m,
    );
    const usage = await cli(['usage', id, '--from', '2026-01-30', '--to', '2026-01-31']);
    expect(usage.code).toBe(0);
    expect(usage.stdout).toMatch(/^Usage of acc_\S+, 2026-01-30 to 2026-01-31$/m);
    expect(usage.stdout).toMatch(/^2026-01-31\s+account\s+0\s+0\s+0$/m);
  });

  it('help says what each rule set requires of accounts create, and lists the new commands', async () => {
    const help = await runCli(['help'], { token: null });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /accounts create --email EMAIL --name NAME \(rule set A\) --password-stdin \(rule set A\)/,
    );
    expect(help.stdout).toMatch(
      /Rule set A requires --email, --name and --password-stdin; rule set B takes --email only/,
    );
    expect(help.stdout).toMatch(/required in rule set A and refused in rule set B/);
    expect(help.stdout).toMatch(/^ {2}accounts list .*\[--email-prefix TEXT\]/m);
    expect(help.stdout).toMatch(/^ {2}keys list ACCOUNT /m);
  });
});

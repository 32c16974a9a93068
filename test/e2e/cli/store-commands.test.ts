/**
 * `geogate migrate --config FILE` and `geogate reconcile --config FILE` (issue 4), as the real process
 * (dist/gateway/cli/main.js; `npm run build:ts` first), without an admin token: against a temp SQLite store and
 * against the shared store (PostgreSQL own database + Redis own prefix; skipped outside CI when unreachable).
 */
import { existsSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { Redis } from 'ioredis';
import { MIGRATIONS_TABLE } from '../../../gateway/store';
import { freePort, LOCAL_REDIS_URL } from '../../helpers/redis-server';
import { runNode, useTempDir, type Run } from '../harness';
import { describeShared, sharedEnv, type SharedEnv } from '../../integration/shared/harness';

const CLI = join(__dirname, '..', '..', '..', 'dist', 'gateway', 'cli', 'main.js');
const PEPPER = 'cli-store-pepper-0123456789';

jest.setTimeout(120_000);

/** Run the CLI with only PATH and `env` (no GEOGATE_ADMIN_TOKEN: these commands must not need it). */
function geogate(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runNode(CLI, args, { PATH: process.env.PATH ?? '', ...env });
}

/** A gateway config file whose store section is `store` (YAML flow mapping). */
function configFile(dir: string, store: string, extra = ''): string {
  const file = join(dir, 'gateway.yaml');
  writeFileSync(
    file,
    [
      'policy: A',
      "backend: { url: 'http://127.0.0.1:9' }",
      `store: ${store}`,
      "keyPepper: '${PEPPER}'",
      'hosts: [{ name: localhost, adapter: native }]',
      extra,
    ].join('\n'),
  );
  return file;
}

let dir: string;
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build:ts" before the CLI e2e tests`);
});
useTempDir('geogate-cli-store-', (d) => (dir = d));

describe('embedded store', () => {
  test('migrate creates the SQLite schema (parent folders too), twice is fine; no admin token needed', async () => {
    const db = join(dir, 'nested', 'data', 'geogate.db');
    const file = configFile(dir, `{ kind: embedded, path: '${db}' }`);
    const first = await geogate(['migrate', '--config', file], { PEPPER });
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain(`SQLite schema of ${db} is up to date`);
    const sqlite = new Database(db, { readonly: true });
    try {
      const tables = sqlite
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => (r as { name: string }).name);
      expect(tables).toEqual(expect.arrayContaining([MIGRATIONS_TABLE, 'accounts']));
      const applied = sqlite.prepare(`SELECT COUNT(*) AS n FROM ${MIGRATIONS_TABLE}`).get() as { n: number };
      expect(applied.n).toBeGreaterThan(0);
    } finally {
      sqlite.close();
    }
    expect((await geogate(['migrate', '--config', file], { PEPPER })).code).toBe(0);
  });

  test('reconcile: nothing to reconcile (single source of truth), exit 0', async () => {
    const file = configFile(dir, `{ kind: embedded, path: '${join(dir, 'r.db')}' }`);
    const r = await geogate(['reconcile', '--config', file], { PEPPER });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/nothing to reconcile; SQLite is the single source of truth/);
  });

  test('--json prints the text and the exit code', async () => {
    const file = configFile(dir, `{ kind: embedded, path: '${join(dir, 'j.db')}' }`);
    const r = await geogate(['reconcile', '--config', file, '--json'], { PEPPER });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ exitCode: 0 });
  });

  test('usage errors (exit 2): --config missing, a bad config naming file and path, an unset variable', async () => {
    const missing = await geogate(['migrate']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--config is required');

    const bad = configFile(dir, `{ kind: embedded, path: '${join(dir, 'b.db')}' }`, 'onStoreFailure: maybe');
    const r = await geogate(['migrate', '--config', bad], { PEPPER });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}: onStoreFailure: `);
    expect(existsSync(join(dir, 'b.db'))).toBe(false);

    const unset = await geogate(['migrate', '--config', bad.replace('gateway.yaml', 'absent.yaml')]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('cannot read the config file');

    const good = configFile(dir, `{ kind: embedded, path: '${join(dir, 'c.db')}' }`);
    const noPepper = await geogate(['reconcile', '--config', good]);
    expect(noPepper.code).toBe(2);
    expect(noPepper.stderr).toContain('keyPepper: environment variable PEPPER is not set');
  });
});

test('an unreachable shared store: exit 1 with the reason on stderr, promptly', async () => {
  const port = await freePort(); // nothing listens there
  const file = configFile(
    dir,
    `{ kind: shared, postgres: 'postgres://postgres@127.0.0.1:${port}/x', redis: 'redis://127.0.0.1:${port}' }`,
  );
  for (const command of ['migrate', 'reconcile']) {
    const r = await geogate([command, '--config', file], { PEPPER });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`geogate: ${command}: the store failed:`);
    expect(r.stderr).toContain(`Redis at 127.0.0.1:${port} is unreachable: connect ECONNREFUSED`);
  }
});

describeShared('shared store (PostgreSQL + Redis)', () => {
  let env: SharedEnv;
  let file: string;
  beforeAll(async () => {
    env = await sharedEnv(LOCAL_REDIS_URL, 'cli');
    file = configFile(
      dir,
      `{ kind: shared, postgres: '${env.db.url}', redis: '${LOCAL_REDIS_URL}', keyPrefix: '${env.prefix}' }`,
    );
  });
  afterAll(async () => env?.cleanup());

  test('migrate creates the PostgreSQL schema in the own database', async () => {
    const r = await geogate(['migrate', '--config', file], { PEPPER });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain('PostgreSQL schema is up to date');
    const pg = new Client({ connectionString: env.db.url });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      expect(rows.map((x) => x.table_name)).toEqual(expect.arrayContaining(['accounts', 'ledger']));
    } finally {
      await pg.end();
    }
  });

  test('reconcile: no drift → exit 0; a tampered Redis balance → exit 1 naming the account', async () => {
    const clean = await geogate(['reconcile', '--config', file], { PEPPER });
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/no drift/);

    const store = await env.open();
    const acc = await store.createAccount(
      { email: `cli-${Date.now()}@example.com`, name: 'CLI' },
      Date.now(),
    );
    await store.credit(acc.id, 500, null, Date.now());
    const afterCredit = await geogate(['reconcile', '--config', file], { PEPPER });
    expect(afterCredit.code).toBe(0);
    expect(afterCredit.stdout).toMatch(/checked [1-9]\d* balances/);

    const redis = new Redis(LOCAL_REDIS_URL);
    try {
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', `${env.prefix}*w:${acc.id}`, 'COUNT', 1000);
        cursor = next;
        keys.push(...found);
      } while (cursor !== '0');
      expect(keys).toHaveLength(1);
      await redis.hset(keys[0] as string, 'b', '999');
    } finally {
      redis.disconnect();
    }
    const drift = await geogate(['reconcile', '--config', file], { PEPPER });
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain(`drift balance ${acc.id}: redis 999 postgres 500`);
  });
});

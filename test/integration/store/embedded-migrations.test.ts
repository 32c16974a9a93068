/**
 * The shared migrations run unchanged on SQLite and PostgreSQL (the shared store of issue 4 runs them too): tables,
 * the constraints the stores rely on, re-running is a no-op, and `down` drops everything.
 */
import knexFactory, { type Knex } from 'knex';
import { Client } from 'pg';
import { expectFault } from '../../contract/helpers';
import {
  MIGRATIONS,
  MIGRATIONS_TABLE,
  migrationSource,
  runMigrations,
} from '../../../gateway/store/migrations';

const PG = { host: '127.0.0.1', port: 5432, user: process.env.PGUSER ?? 'postgres', database: 'postgres' };
const TABLES = [
  'accounts',
  'api_keys',
  'whitelist',
  'ledger',
  'usage_daily',
  'counters_daily',
  'slots',
  'admissions',
  'single_use',
];

/** Whether PostgreSQL answers (outside CI a missing server skips the PostgreSQL case). */
async function pgReachable(): Promise<boolean> {
  const c = new Client({ ...PG, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/** Exercise the schema's constraints through knex. */
async function checkSchema(knex: Knex): Promise<void> {
  for (const t of TABLES) expect(await knex.schema.hasTable(t)).toBe(true);
  const acc = { status: 'active', balance: 0, created_at: 1 };
  await knex('accounts').insert({ id: 'acc_1', email: 'A@x.org', email_norm: 'a@x.org', ...acc });
  await expectFault(
    knex('accounts').insert({ id: 'acc_2', email: 'a@x.org', email_norm: 'a@x.org', ...acc }),
  );
  const row = { account_id: 'acc_1', amount: 5, kind: 'topup', created_at: 1 };
  await knex('ledger').insert({ id: 'led_1', ref: null, ...row });
  await knex('ledger').insert({ id: 'led_2', ref: null, ...row }); // NULL refs are not constrained
  await knex('ledger').insert({ id: 'led_3', ref: 'pay-1', ...row });
  await expectFault(knex('ledger').insert({ id: 'led_4', ref: 'pay-1', ...row }));
  await expectFault(knex('ledger').insert({ id: 'led_5', ref: 'x', ...row, account_id: 'acc_nope' }));
  await knex('accounts')
    .where({ id: 'acc_1' })
    .update({ balance: 2 ** 53 - 1 });
  expect(Number((await knex('accounts').where({ id: 'acc_1' }).first()).balance)).toBe(2 ** 53 - 1);
  await runMigrations(knex); // a second run is a no-op
  expect(Number((await knex(MIGRATIONS_TABLE).count({ n: '*' }))[0]?.n)).toBe(MIGRATIONS.length);
  await knex.migrate.rollback({ migrationSource, tableName: MIGRATIONS_TABLE }, true);
  for (const t of TABLES) expect(await knex.schema.hasTable(t)).toBe(false);
}

describe('shared migrations', () => {
  it('run on SQLite (better-sqlite3) with foreign keys on', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
      pool: {
        afterCreate: (c: { pragma(s: string): void }, done: () => void) => (
          c.pragma('foreign_keys = ON'),
          done()
        ),
      },
    });
    try {
      await runMigrations(knex);
      await checkSchema(knex);
    } finally {
      await knex.destroy();
    }
  });

  it('run unchanged on PostgreSQL', async () => {
    if (!(await pgReachable())) {
      if (process.env.CI === 'true') throw new Error('PostgreSQL on 127.0.0.1:5432 is required in CI');
      console.warn('skipped: PostgreSQL on 127.0.0.1:5432 is not reachable');
      return;
    }
    const db = `geogate_mig_${process.pid}_${Date.now()}`;
    const admin = new Client(PG);
    await admin.connect();
    await admin.query(`CREATE DATABASE ${db}`);
    const knex = knexFactory({ client: 'pg', connection: { ...PG, database: db } });
    try {
      await runMigrations(knex);
      await checkSchema(knex);
    } finally {
      await knex.destroy();
      await admin.query(`DROP DATABASE ${db}`);
      await admin.end();
    }
  });
});

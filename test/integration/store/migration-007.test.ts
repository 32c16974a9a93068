/**
 * Migration 007 (issue 15 item 1): accounts that exist before it count as verified at their creation, and are not
 * deleted; on SQLite and PostgreSQL.
 */
import knexFactory, { type Knex } from 'knex';
import { Client } from 'pg';
import {
  MIGRATIONS,
  MIGRATIONS_TABLE,
  migrationSource,
  runMigrations,
} from '../../../gateway/store/migrations';
import { toAccount } from '../../../gateway/store/rows';

const PG = { host: '127.0.0.1', port: 5432, user: process.env.PGUSER ?? 'postgres', database: 'postgres' };

/** Migrate to just before 007, add two accounts, migrate to the end, and read them back. */
async function existingAccountsCountAsVerified(knex: Knex): Promise<void> {
  const opts = { migrationSource, tableName: MIGRATIONS_TABLE };
  for (let i = 0; i < 3; i += 1) await knex.migrate.up(opts); // 001, 002, 003
  const row = { status: 'active', balance: 0, name: null, password_hash: null };
  await knex('accounts').insert([
    { id: 'acc_old1', email: 'old1@x.org', email_norm: 'old1@x.org', created_at: 1_000, ...row },
    { id: 'acc_old2', email: 'old2@x.org', email_norm: 'old2@x.org', created_at: 2_000, ...row },
  ]);
  await runMigrations(knex);
  const accounts = (await knex('accounts').orderBy('id')).map(toAccount);
  expect(accounts.map((a) => [a.id, a.emailVerifiedAt, a.deletedAt])).toEqual([
    ['acc_old1', 1_000, null],
    ['acc_old2', 2_000, null],
  ]);
  // And back down (the migrations after 007 first): the columns go, the accounts stay.
  const at007 = MIGRATIONS.findIndex((m) => m.name.startsWith('007_'));
  for (let i = MIGRATIONS.length - 1; i >= at007; i -= 1) await knex.migrate.down(opts);
  expect(await knex.schema.hasColumn('accounts', 'email_verified_at')).toBe(false);
  expect(Number((await knex('accounts').count({ n: '*' }))[0]?.n)).toBe(2);
}

describe('migration 007 (account lifecycle)', () => {
  it('on SQLite: existing accounts are verified at their creation', async () => {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: { filename: ':memory:' },
      useNullAsDefault: true,
    });
    try {
      await existingAccountsCountAsVerified(knex);
    } finally {
      await knex.destroy();
    }
  });

  it('on PostgreSQL: existing accounts are verified at their creation', async () => {
    const admin = new Client({ ...PG, connectionTimeoutMillis: 2000 });
    try {
      await admin.connect();
    } catch {
      if (process.env.CI === 'true') throw new Error('PostgreSQL on 127.0.0.1:5432 is required in CI');
      console.warn('skipped: PostgreSQL on 127.0.0.1:5432 is not reachable');
      return;
    }
    const db = `geogate_mig7_${process.pid}_${Date.now()}`;
    await admin.query(`CREATE DATABASE ${db}`);
    const knex = knexFactory({ client: 'pg', connection: { ...PG, database: db } });
    try {
      await existingAccountsCountAsVerified(knex);
    } finally {
      await knex.destroy();
      await admin.query(`DROP DATABASE ${db}`);
      await admin.end();
    }
  });
});

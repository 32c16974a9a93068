/**
 * The initial schema, shared by the embedded (SQLite) and shared (PostgreSQL) stores: only schema-builder types
 * that map on both. Money and counters are bigInteger (D16); times are bigInteger epoch ms. (PostgreSQL returns
 * bigint as a string: the shared store converts with Number, safe below 2^53.)
 */
import type { Knex } from 'knex';

export const name = '001_initial';

/** Create accounts, keys, whitelist, ledger, usage, counters, slots and admissions. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.string('id', 40).primary();
    t.string('email', 320).notNullable();
    // Unique case-insensitively: the trimmed, lower-cased address.
    t.string('email_norm', 320).notNullable().unique();
    t.text('name').nullable();
    t.text('password_hash').nullable();
    t.string('status', 16).notNullable();
    t.bigInteger('balance').notNullable();
    t.bigInteger('unlimited_until').nullable();
    t.bigInteger('created_at').notNullable();
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('id').inTable('accounts');
    t.string('hash', 128).notNullable().unique();
    t.string('prefix', 16).notNullable();
    t.text('label').nullable();
    t.string('kind', 16).notNullable();
    t.bigInteger('package_until').nullable();
    t.string('status', 16).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at').nullable();
    t.index(['account_id']);
  });
  await knex.schema.createTable('whitelist', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('id').inTable('accounts');
    t.string('cidr', 64).notNullable();
    t.integer('family').notNullable();
    // First and last address of the block as fixed-width lower-case hex: range queries are string comparisons.
    t.string('range_start', 32).notNullable();
    t.string('range_end', 32).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['family', 'range_start']);
    t.index(['account_id']);
  });
  await knex.schema.createTable('ledger', (t) => {
    t.bigIncrements('seq'); // insertion order, for listing newest first
    t.string('id', 40).notNullable().unique();
    t.string('account_id', 40).notNullable().references('id').inTable('accounts');
    t.bigInteger('amount').notNullable();
    t.string('kind', 16).notNullable();
    t.string('key_id', 40).nullable();
    t.string('ref', 200).nullable();
    t.bigInteger('created_at').notNullable();
    // NULLs are distinct in unique indexes on both databases: only rows with a ref are constrained.
    t.unique(['account_id', 'ref']);
    t.index(['account_id', 'seq']);
  });
  await createCounting(knex);
}

/** The per-request tables: usage history, daily counters, slots, admissions (release bookkeeping). */
async function createCounting(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_daily', (t) => {
    t.string('day', 10).notNullable();
    t.string('subject', 200).notNullable();
    t.bigInteger('free').notNullable();
    t.bigInteger('billed').notNullable();
    t.bigInteger('refused').notNullable();
    // Subject first: the same index serves the per-request upsert and the history query of a subject.
    t.primary(['subject', 'day']);
  });
  await knex.schema.createTable('counters_daily', (t) => {
    t.string('day', 10).notNullable();
    t.string('counter_id', 200).notNullable();
    t.bigInteger('used').notNullable();
    t.primary(['day', 'counter_id']);
  });
  await knex.schema.createTable('slots', (t) => {
    t.string('scope', 200).notNullable();
    t.string('member', 64).notNullable();
    t.bigInteger('first_seen').notNullable();
    t.bigInteger('last_seen').notNullable();
    t.primary(['scope', 'member']);
  });
  // One row per admitted plan until released (release is idempotent) or pruned after two days. No index on
  // created_at: one index fewer to write per admission; the stores prune in insertion order.
  await knex.schema.createTable('admissions', (t) => {
    t.string('plan_id', 100).primary();
    t.bigInteger('created_at').notNullable();
  });
}

/** Drop every table of this migration. */
export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'admissions',
    'slots',
    'counters_daily',
    'usage_daily',
    'ledger',
    'whitelist',
    'api_keys',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
  await knex.schema.dropTableIfExists('accounts');
}

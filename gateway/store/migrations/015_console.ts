/**
 * The operator console (docs/console.md):
 * - `operators`: who may sign in to the console, with a role (support or admin) and a scrypt password hash; `name`
 *   is unique case-insensitively (stored lower-case). A disabled operator keeps its row (audit lines name it).
 * - `recent_refusals`: the refusals of the last 24 h of each account with their time, code, key, address and host,
 *   written in batches off the request path (gateway/http/refusal-log.ts) and kept bounded by the store (rows older
 *   than a day and all but the newest per account are pruned on every batch; docs/decisions.md).
 * Portable like 007 (SQLite and PostgreSQL).
 */
import type { Knex } from 'knex';

export const name = '015_console';

/** Create the two tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('operators', (t) => {
    t.string('id', 40).primary();
    t.string('name', 64).notNullable().unique();
    t.string('role', 16).notNullable();
    t.text('password_hash').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('disabled_at').nullable();
  });
  await knex.schema.createTable('recent_refusals', (t) => {
    t.increments('seq').primary();
    t.string('account_id', 40).notNullable();
    t.string('key_id', 40).nullable();
    t.string('code', 40).notNullable();
    t.string('address', 64).notNullable();
    t.string('host', 64).notNullable();
    t.bigInteger('at').notNullable();
    t.index(['account_id', 'at'], 'recent_refusals_account_at_index');
    t.index(['at'], 'recent_refusals_at_index');
  });
}

/** Drop them again. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('recent_refusals');
  await knex.schema.dropTable('operators');
}

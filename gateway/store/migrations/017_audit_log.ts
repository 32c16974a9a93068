/**
 * The stored audit log (docs/console.md, "The audit log"): one row per audited action, so the console can show who
 * did what to an account. Only ids and non-secret facts go in (the audit line's fields, never a key, token, link
 * or password). Bounded: rows older than the retention or beyond the row cap are pruned on each write
 * (gateway/store/console-store.ts). Portable like 015 (SQLite and PostgreSQL).
 */
import type { Knex } from 'knex';

export const name = '017_audit_log';

/** Create the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_log', (t) => {
    t.increments('seq').primary();
    t.bigInteger('at').notNullable();
    t.string('actor', 16).notNullable();
    t.string('operator', 64).nullable();
    t.string('action', 48).notNullable();
    t.string('account_id', 40).nullable();
    t.string('object', 64).nullable();
    t.text('details').notNullable();
    t.index(['account_id', 'seq'], 'audit_log_account_seq_index');
    t.index(['at'], 'audit_log_at_index');
  });
}

/** Drop it again. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_log');
}

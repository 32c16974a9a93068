/**
 * Account lifecycle (issue 15 item 1): when the e-mail address was proven (verification at sign-up) and when the
 * account was deleted. Accounts that exist before this migration count as verified (at their creation): they were
 * created by the operator, by rule set B's e-mailed link, or before verification existed. Portable like 002.
 */
import type { Knex } from 'knex';

export const name = '007_account_lifecycle';

/** Add accounts.email_verified_at and accounts.deleted_at (epoch ms, null = not yet). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.bigInteger('email_verified_at').nullable();
    t.bigInteger('deleted_at').nullable();
  });
  await knex('accounts').update({ email_verified_at: knex.ref('created_at') });
}

/**
 * Drop the two columns. Plain ALTER TABLE … DROP COLUMN (SQLite ≥ 3.35 and PostgreSQL): knex's SQLite dropColumn
 * rebuilds the table, which foreign keys from api_keys, whitelist and ledger forbid.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE accounts DROP COLUMN email_verified_at');
  await knex.raw('ALTER TABLE accounts DROP COLUMN deleted_at');
}

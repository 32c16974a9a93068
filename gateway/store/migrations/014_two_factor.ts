/**
 * A second factor for the dashboard (TOTP, RFC 6238) and the reminders of key end dates:
 * - `account_totp`: one row per account that began enrolment; `secret` is the TOTP secret sealed with a key derived
 *   from the pepper (never stored or logged in clear); `enabled_at` null while enrolment is unconfirmed;
 *   `last_step` the newest 30-second step a code was accepted for (a code is accepted once: replay protection).
 * - `account_recovery_codes`: the hashes of the one-time recovery codes; `used_at` set when one is spent.
 * - an index on api_keys(expires_at), read by the key-expiry reminder of the notification sweep (010 added the
 *   columns `expires_at` and `expiry_notified_at`).
 */
import type { Knex } from 'knex';

export const name = '014_two_factor';

/** Create the two tables and the index. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('account_totp', (t) => {
    t.string('account_id', 40).primary().references('id').inTable('accounts');
    t.string('secret', 200).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('enabled_at').nullable();
    t.bigInteger('last_step').nullable();
  });
  await knex.schema.createTable('account_recovery_codes', (t) => {
    t.string('account_id', 40).notNullable().references('id').inTable('accounts');
    t.string('code_hash', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('used_at').nullable();
    t.primary(['account_id', 'code_hash']);
  });
  await knex.schema.alterTable('api_keys', (t) => t.index(['expires_at'], 'api_keys_expires_at_index'));
}

/** Drop them again. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => t.dropIndex(['expires_at'], 'api_keys_expires_at_index'));
  await knex.schema.dropTable('account_recovery_codes');
  await knex.schema.dropTable('account_totp');
}

/**
 * Auto top-up: per-account settings (threshold, amount, the saved card at the payment provider) and one attempt
 * row per crossing of the threshold, its id `<account>:<crossing>` the claim that makes each crossing charge once.
 * Portable like 006: strings, integers and bigint epoch-ms times only.
 */
import type { Knex } from 'knex';

export const name = '011_auto_topup';

/** Create the two auto top-up tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('auto_topup_settings', (t) => {
    t.string('account_id', 40).primary();
    t.integer('enabled').notNullable();
    t.bigInteger('threshold').nullable();
    t.bigInteger('amount').nullable();
    // The provider's ids only (Stripe customer and PaymentMethod); the card itself stays at the provider.
    t.string('customer_id', 255).nullable();
    t.string('payment_method_id', 255).nullable();
    t.string('card_label', 80).nullable();
    // The current crossing: armed while it has no attempt row, bumped when the balance is back at the threshold.
    t.integer('seq').notNullable();
    t.integer('failures').notNullable();
    t.string('disabled_reason', 40).nullable();
    t.bigInteger('updated_at').notNullable();
  });
  await knex.schema.createTable('auto_topup_attempts', (t) => {
    t.string('id', 80).primary();
    t.string('account_id', 40).notNullable();
    t.integer('seq').notNullable();
    t.bigInteger('units').notNullable();
    t.string('status', 16).notNullable();
    t.string('payment_intent', 255).nullable();
    t.string('error', 60).nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('finished_at').nullable();
    t.index(['account_id', 'created_at'], 'auto_topup_attempts_account');
    t.index(['status', 'created_at'], 'auto_topup_attempts_status');
  });
}

/** Drop them. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('auto_topup_attempts');
  await knex.schema.dropTableIfExists('auto_topup_settings');
}

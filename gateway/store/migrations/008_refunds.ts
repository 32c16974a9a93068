/**
 * Refunds and lost disputes of paid top-ups (D31, D16): a top-up's receipt names the provider's payment it was paid
 * by (`payment_ref`, e.g. Stripe's PaymentIntent) and how much of it was refunded since; a refund issues a credit note
 * (a receipt of kind 'credit_note' naming the receipt it refunds, `credit_of`). `refunds` holds one row per provider
 * event that moved money: what it refunded, what was taken from the balance and what could not be (owed). Portable
 * like 002.
 */
import type { Knex } from 'knex';

export const name = '008_refunds';

/** Add the receipts' refund columns and the refunds table. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('receipts', (t) => {
    t.string('payment_ref', 100).nullable().unique();
    t.string('credit_of', 20).nullable();
    t.bigInteger('refunded').notNullable().defaultTo(0);
    t.bigInteger('owed').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('refunds', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('id').inTable('accounts');
    // The top-up's receipt, and what is refunded of it ('refund:ch_…', 'dispute:dp_…'): one running total each.
    t.string('receipt_number', 20).notNullable();
    t.string('claim', 100).notNullable();
    // The provider's event: a repeat of it changes nothing.
    t.string('event_ref', 200).notNullable().unique();
    t.bigInteger('amount').notNullable();
    // Null until the balance was debited (shared store: a crash in between is finished by the event's repeat).
    t.bigInteger('removed').nullable();
    t.bigInteger('owed').nullable();
    t.string('credit_note', 20).nullable();
    t.bigInteger('created_at').notNullable();
    t.index(['receipt_number']);
  });
}

/** Drop the refunds table and the receipts' refund columns (plain ALTER TABLE, as in 007). */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('refunds');
  await knex.schema.alterTable('receipts', (t) => t.dropUnique(['payment_ref']));
  for (const c of ['payment_ref', 'credit_of', 'refunded', 'owed'])
    await knex.raw(`ALTER TABLE receipts DROP COLUMN ${c}`);
}

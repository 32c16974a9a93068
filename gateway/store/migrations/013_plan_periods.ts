/**
 * Rule set B's Unlimited plan bought in the dashboard (D17, D32): one row per paid period. The account's
 * `unlimited_until` stays the one value admission reads; a period row records what a payment bought (from, until,
 * days), how it was paid and its receipt, and its `ref` (the provider's checkout or invoice id) is unique, so a
 * payment extends the plan exactly once whatever the number of webhook deliveries. Portable like 002.
 */
import type { Knex } from 'knex';

export const name = '013_plan_periods';

/** Create plan_periods. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plan_periods', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('id').inTable('accounts');
    // The payment that bought the period ('stripe:cs_…', 'btcpay:…', 'test:…'): one period per payment.
    t.string('ref', 200).notNullable().unique();
    t.bigInteger('starts_at').notNullable();
    t.bigInteger('ends_at').notNullable();
    t.integer('days').notNullable();
    t.string('method', 16).notNullable();
    t.bigInteger('paid_minor').nullable();
    t.string('paid_currency', 3).nullable();
    t.string('payment_ref', 100).nullable();
    t.string('receipt_number', 20).notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['account_id', 'created_at']);
  });
}

/** Drop plan_periods. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('plan_periods');
}

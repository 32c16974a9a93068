/**
 * Invoices (gateway/store/invoices.ts): the buyer's country beside the billing details, and on each receipt issued
 * while invoicing is configured a snapshot of the seller, the buyer's country, the tax treatment and the net, tax and
 * gross amounts in whole minor units. All nullable: receipts issued before stay as they were. Portable like 002.
 */
import type { Knex } from 'knex';

export const name = '012_invoices';

const RECEIPT_COLUMNS = [
  'invoice_seller',
  'billing_country',
  'tax_scheme',
  'tax_country',
  'tax_rate_bp',
  'invoice_currency',
  'invoice_exponent',
  'net_minor',
  'tax_minor',
  'gross_minor',
];

/** Add the billing country and the receipts' invoice columns. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('account_billing', (t) => {
    t.string('country', 2).nullable();
  });
  await knex.schema.alterTable('receipts', (t) => {
    t.text('invoice_seller').nullable();
    t.string('billing_country', 2).nullable();
    t.string('tax_scheme', 16).nullable();
    t.string('tax_country', 2).nullable();
    t.integer('tax_rate_bp').nullable();
    t.string('invoice_currency', 3).nullable();
    t.integer('invoice_exponent').nullable();
    t.bigInteger('net_minor').nullable();
    t.bigInteger('tax_minor').nullable();
    t.bigInteger('gross_minor').nullable();
  });
}

/** Drop them again (plain ALTER TABLE, as in 007). */
export async function down(knex: Knex): Promise<void> {
  for (const c of RECEIPT_COLUMNS) await knex.raw(`ALTER TABLE receipts DROP COLUMN ${c}`);
  await knex.raw('ALTER TABLE account_billing DROP COLUMN country');
}

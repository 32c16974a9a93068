/**
 * Receipts (issue 15 item 3, D31): the account's billing details, one gapless number series per calendar year and
 * the receipts themselves, each with a snapshot of the billing details it was issued to. Portable like 002: varchar,
 * text and bigint columns that map the same on SQLite and PostgreSQL.
 */
import type { Knex } from 'knex';

export const name = '005_receipts';

/** Create account_billing, receipt_series and receipts. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('account_billing', (t) => {
    t.string('account_id', 40).primary().references('id').inTable('accounts');
    t.text('name').nullable();
    t.text('address').nullable();
    t.string('vat_id', 40).nullable();
    t.bigInteger('updated_at').notNullable();
  });
  // One row per series (the UTC year): `last` is the last number given. Allocating is an UPDATE in the transaction
  // that writes the receipt, so a rolled-back receipt gives its number back (a sequence would burn it).
  await knex.schema.createTable('receipt_series', (t) => {
    t.string('series', 8).primary();
    t.bigInteger('last').notNullable();
  });
  await knex.schema.createTable('receipts', (t) => {
    t.string('number', 20).primary();
    t.string('series', 8).notNullable();
    t.bigInteger('seq').notNullable();
    t.string('account_id', 40).notNullable().references('id').inTable('accounts');
    // What it is the receipt of: the top-up's ledger entry id, or the package's key id. One receipt per source.
    t.string('source_id', 60).notNullable().unique();
    t.string('kind', 16).notNullable();
    t.string('method', 16).notNullable();
    t.bigInteger('amount').notNullable();
    t.string('currency', 16).notNullable();
    t.bigInteger('paid_minor').nullable();
    t.string('paid_currency', 3).nullable();
    t.text('billing_name').nullable();
    t.text('billing_address').nullable();
    t.string('billing_vat_id', 40).nullable();
    t.bigInteger('issued_at').notNullable();
    t.unique(['series', 'seq']);
    t.index(['account_id', 'issued_at']);
  });
}

/** Drop the receipt tables. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('receipts');
  await knex.schema.dropTableIfExists('receipt_series');
  await knex.schema.dropTableIfExists('account_billing');
}

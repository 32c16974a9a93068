/**
 * D35: charges are one ledger row per (account, key, UTC hour). A charge row gets `count` (requests) and
 * `hour_start` (epoch ms); its ref `charge <hourStart> <keyId|->` (charge-hour.ts) keys it under the existing unique
 * (account_id, ref) index, so no new index is written per request. Rows of other kinds leave both null.
 * Per-request charge rows written before this migration stay as they are (count and hour_start null, ref = the
 * admission id): history is not rewritten, `balance = sum(ledger)` holds untouched, a release of an admission made
 * before the upgrade still finds its row, and the migration is two column additions on any ledger size.
 * Portable like 007.
 */
import type { Knex } from 'knex';

export const name = '009_hourly_ledger';

/** Add ledger.count and ledger.hour_start (null for every existing row). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger', (t) => {
    t.bigInteger('count').nullable();
    t.bigInteger('hour_start').nullable();
  });
}

/**
 * Drop the two columns. Hourly rows stay as charge rows of their whole amount (ref unchanged), so every row's amount,
 * and with it `balance = sum(ledger)`, is kept; only the request counts are lost. Plain ALTER TABLE as in 007.
 */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE ledger DROP COLUMN count');
  await knex.raw('ALTER TABLE ledger DROP COLUMN hour_start');
}

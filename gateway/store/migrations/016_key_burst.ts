/**
 * A key's own burst limits (docs/gateway.md, "Burst limits"): requests per second and per minute, set by the
 * operator; null when the deployment's key limits apply. Columns of the key row, so identification reads them in the
 * join it already makes (as 004 and 010): the request path decides burst limits without another lookup.
 */
import type { Knex } from 'knex';

export const name = '016_key_burst';

/** Add the api_keys columns of a key's own burst limits. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.integer('burst_per_second').nullable();
    t.integer('burst_per_minute').nullable();
  });
}

/** Drop them again with plain ALTER TABLE … DROP COLUMN (as 010: knex's SQLite dropColumn would rebuild the table). */
export async function down(knex: Knex): Promise<void> {
  for (const column of ['burst_per_minute', 'burst_per_second']) {
    await knex.raw(`ALTER TABLE api_keys DROP COLUMN ${column}`);
  }
}

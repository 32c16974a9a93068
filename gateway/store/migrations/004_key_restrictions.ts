/**
 * Key restrictions (issue 15 item 4, D29): one nullable text column on api_keys holding the canonical restrictions
 * as JSON (`{"referrers":[…],"cidrs":[…]}`), null when the key has none. A column of the key row, not a table of
 * its own, so identification reads it in the join it already makes (one row per key, no second lookup).
 */
import type { Knex } from 'knex';

export const name = '004_key_restrictions';

/** Add api_keys.restrictions. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.text('restrictions').nullable();
  });
}

/** Drop api_keys.restrictions. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('restrictions');
  });
}

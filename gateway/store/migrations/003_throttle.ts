/**
 * Windowed counters for sign-in throttling (issue 13): one row per name with its count and window end. Used by the
 * embedded store (the shared store keeps them in Redis); portable like 002.
 */
import type { Knex } from 'knex';

export const name = '003_throttle';

/** Create throttle (name, count, reset_at) with an index on reset_at for pruning. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('throttle', (t) => {
    t.string('name', 200).primary();
    t.integer('count').notNullable();
    t.bigInteger('reset_at').notNullable().index('throttle_reset_at');
  });
}

/** Drop throttle. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('throttle');
}

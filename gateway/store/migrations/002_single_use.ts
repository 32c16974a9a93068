/**
 * Single-use marks (dashboard sign-in links, ended sessions): an id consumed once stays consumed until its expiry.
 * Portable: a varchar primary key and a bigint epoch-ms expiry map the same on SQLite and PostgreSQL.
 */
import type { Knex } from 'knex';

export const name = '002_single_use';

/** Create single_use (id, expires_at) with an index on expires_at for pruning. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('single_use', (t) => {
    t.string('id', 200).primary();
    t.bigInteger('expires_at').notNullable().index('single_use_expires_at');
  });
}

/** Drop single_use. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('single_use');
}

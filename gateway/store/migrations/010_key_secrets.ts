/**
 * Test keys, rotation and expiry (D39, D40): columns of the key row, so identification reads them in the join it
 * already makes (one lookup per request, as 004).
 * - `test`: a test key (D40): answered by the gateway with canned results, never admitted or counted.
 * - `previous_hash` / `previous_until`: after a rotation, the old secret's hash and when it stops working (the
 *   overlap the owner chose, D39); null when none. Indexed: identification looks a presented hash up in both.
 * - `rotated_at`: when the key last got a new secret.
 * - `expires_at`: an optional end the owner set; `expiry_notified_at`: when the owner was reminded of it.
 */
import type { Knex } from 'knex';

export const name = '010_key_secrets';

/** Add the api_keys columns of test keys, rotation and expiry. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.boolean('test').notNullable().defaultTo(false);
    t.string('previous_hash', 128).nullable();
    t.bigInteger('previous_until').nullable();
    t.bigInteger('rotated_at').nullable();
    t.bigInteger('expires_at').nullable();
    t.bigInteger('expiry_notified_at').nullable();
    t.index(['previous_hash'], 'api_keys_previous_hash_index');
  });
}

/**
 * Drop them again: the index, then plain ALTER TABLE … DROP COLUMN (as 007: knex's SQLite dropColumn rebuilds the
 * table, which the foreign keys to api_keys forbid).
 */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) =>
    t.dropIndex(['previous_hash'], 'api_keys_previous_hash_index'),
  );
  for (const column of [
    'expiry_notified_at',
    'expires_at',
    'rotated_at',
    'previous_until',
    'previous_hash',
    'test',
  ]) {
    await knex.raw(`ALTER TABLE api_keys DROP COLUMN ${column}`);
  }
}

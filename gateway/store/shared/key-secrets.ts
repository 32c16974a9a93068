/** A key's secrets on the shared store (D39): rotation with an overlap, the owner's end date, revocation by hash. */
import type { Knex } from 'knex';
import { toKey } from '../rows';
import { requireKeyBurst } from '../checks';
import { StoreConflict, type ApiKey, type KeyBurst, type NewSecret } from '../types';

/** Give an active key a new secret (see KeyStore.rotateKey); the key and the hash it had. */
export async function rotateKey(
  knex: Knex,
  id: string,
  secret: NewSecret,
  previousUntil: number | null,
  now: number,
): Promise<{ key: ApiKey; hash: string }> {
  return knex.transaction(async (trx) => {
    const row = (await trx('api_keys').where({ id }).forUpdate().first()) as
      { hash: string; status: string } | undefined;
    if (!row) throw new StoreConflict('not_found', `key ${id} not found`);
    if (row.status === 'revoked') throw new StoreConflict('already_revoked', `key ${id} is revoked`);
    const overlap = previousUntil !== null && previousUntil > now;
    const [updated] = await trx('api_keys')
      .where({ id })
      .update({
        hash: secret.hash,
        prefix: secret.prefix,
        previous_hash: overlap ? row.hash : null,
        previous_until: overlap ? previousUntil : null,
        rotated_at: now,
      })
      .returning('*');
    return { key: toKey(updated as object), hash: row.hash };
  });
}

/** Set (or clear) a key's end; the key and its hash. */
export async function setKeyExpiry(
  knex: Knex,
  id: string,
  expiresAt: number | null,
): Promise<{ key: ApiKey; hash: string }> {
  const [row] = await knex('api_keys')
    .where({ id })
    .update({ expires_at: expiresAt, expiry_notified_at: null })
    .returning('*');
  if (!row) throw new StoreConflict('not_found', `key ${id} not found`);
  return { key: toKey(row as object), hash: String((row as { hash: string }).hash) };
}

/** Revoke the active key this hash is a working secret of at `now` (see KeyStore.revokeKeyByHash). */
export async function revokeKeyByHash(
  knex: Knex,
  hash: string,
  now: number,
): Promise<{ key: ApiKey; hash: string } | null> {
  const [row] = await knex('api_keys')
    .where({ status: 'active' })
    .andWhere((q) =>
      q.where({ hash }).orWhere((p) => p.where({ previous_hash: hash }).andWhere('previous_until', '>', now)),
    )
    .update({ status: 'revoked', revoked_at: now })
    .returning('*');
  return row ? { key: toKey(row as object), hash: String((row as { hash: string }).hash) } : null;
}

/** Set (or clear) a key's own burst limits (KeyStore.setKeyBurst); the key and its hash. */
export async function setKeyBurst(
  knex: Knex,
  id: string,
  burst: KeyBurst | null,
): Promise<{ key: ApiKey; hash: string }> {
  requireKeyBurst(burst);
  const [row] = await knex('api_keys')
    .where({ id })
    .update({ burst_per_second: burst?.perSecond ?? null, burst_per_minute: burst?.perMinute ?? null })
    .returning('*');
  if (!row) throw new StoreConflict('not_found', `key ${id} not found`);
  return { key: toKey(row as object), hash: String((row as { hash: string }).hash) };
}

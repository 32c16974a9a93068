/** A key's secrets on the embedded store (D39): rotation with an overlap, the owner's end date, revocation by hash. */
import type Database from 'better-sqlite3';
import { toKey } from '../rows';
import { requireKeyBurst } from '../checks';
import { StoreConflict, type ApiKey, type KeyBurst, type NewSecret } from '../types';
import { getKey } from './keys';

/**
 * Give an active key a new secret; the current one keeps working until `previousUntil` (none, or not after `now`:
 * it stops at once). A secret still in an earlier overlap stops now. Revoked → already_revoked.
 */
export function rotateKey(
  db: Database.Database,
  id: string,
  secret: NewSecret,
  previousUntil: number | null,
  now: number,
): ApiKey {
  return db
    .transaction(() => {
      const row = db.prepare('SELECT hash, status FROM api_keys WHERE id = ?').get(id) as
        { hash: string; status: string } | undefined;
      if (!row) throw new StoreConflict('not_found', `key ${id} not found`);
      if (row.status === 'revoked') throw new StoreConflict('already_revoked', `key ${id} is revoked`);
      const overlap = previousUntil !== null && previousUntil > now;
      db.prepare(
        `UPDATE api_keys SET hash = ?, prefix = ?, previous_hash = ?, previous_until = ?, rotated_at = ? WHERE id = ?`,
      ).run(secret.hash, secret.prefix, overlap ? row.hash : null, overlap ? previousUntil : null, now, id);
      return getKey(db, id) as ApiKey;
    })
    .immediate();
}

/** Set (or clear, null) the end of a key, active or revoked; unknown → not_found. */
export function setKeyExpiry(db: Database.Database, id: string, expiresAt: number | null): ApiKey {
  const changed = db
    .prepare('UPDATE api_keys SET expires_at = ?, expiry_notified_at = NULL WHERE id = ?')
    .run(expiresAt, id).changes;
  if (changed === 0) throw new StoreConflict('not_found', `key ${id} not found`);
  return getKey(db, id) as ApiKey;
}

/**
 * Revoke the active key whose current secret, or previous one still in its overlap at `now`, has this hash (D39's
 * leaked-key report); the key revoked, or null when no active key has it.
 */
export function revokeKeyByHash(db: Database.Database, hash: string, now: number): ApiKey | null {
  return db
    .transaction(() => {
      const row = db
        .prepare(
          `SELECT * FROM api_keys WHERE status = 'active' AND (hash = ? OR (previous_hash = ? AND previous_until > ?))`,
        )
        .get(hash, hash, now) as object | undefined;
      if (!row) return null;
      const key = toKey(row);
      db.prepare("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ?").run(now, key.id);
      return { ...key, status: 'revoked' as const, revokedAt: now };
    })
    .immediate();
}

/** Set (or clear, null) a key's own burst limits, active or revoked (KeyStore.setKeyBurst); unknown → not_found. */
export function setKeyBurst(db: Database.Database, id: string, burst: KeyBurst | null): ApiKey {
  requireKeyBurst(burst);
  const changed = db
    .prepare('UPDATE api_keys SET burst_per_second = ?, burst_per_minute = ? WHERE id = ?')
    .run(burst?.perSecond ?? null, burst?.perMinute ?? null, id).changes;
  if (changed === 0) throw new StoreConflict('not_found', `key ${id} not found`);
  return getKey(db, id) as ApiKey;
}

/** API keys of the embedded store (D14: only the hash is stored). */
import type Database from 'better-sqlite3';
import { newKeyRow, toKey } from '../rows';
import { StoreConflict, type ApiKey, type NewKey } from '../types';

/** Insert a key for an existing account (call inside a transaction); unknown account → not_found. */
export function insertKey(db: Database.Database, input: NewKey, now: number): ApiKey {
  const row = newKeyRow(input, now);
  const owner = db.prepare('SELECT status FROM accounts WHERE id = ?').get(input.accountId) as
    { status: string } | undefined;
  if (!owner) throw new StoreConflict('not_found', `account ${input.accountId} not found`);
  if (owner.status === 'deleted')
    throw new StoreConflict('account_deleted', `account ${input.accountId} is deleted`);
  db.prepare(
    `INSERT INTO api_keys
       (id, account_id, hash, prefix, label, kind, package_until, status, created_at, revoked_at, test, expires_at)
     VALUES (@id, @account_id, @hash, @prefix, @label, @kind, @package_until, @status, @created_at, @revoked_at,
       @test, @expires_at)`,
  ).run({ ...row, test: row.test ? 1 : 0 });
  return toKey(row);
}

/** The key with this id, or null. */
export function getKey(db: Database.Database, id: string): ApiKey | null {
  const row = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as object | undefined;
  return row ? toKey(row) : null;
}

/** Revoke an active key; unknown → not_found, already revoked → already_revoked (revokedAt keeps the first). */
export function revokeKey(db: Database.Database, id: string, now: number): ApiKey {
  return db
    .transaction(() => {
      const key = getKey(db, id);
      if (!key) throw new StoreConflict('not_found', `key ${id} not found`);
      if (key.status === 'revoked')
        throw new StoreConflict('already_revoked', `key ${id} is already revoked`);
      db.prepare("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ?").run(now, id);
      return { ...key, status: 'revoked' as const, revokedAt: now };
    })
    .immediate();
}

/** Set a key's label; unknown → not_found. */
export function setKeyLabel(db: Database.Database, id: string, label: string | null): ApiKey {
  const changed = db.prepare('UPDATE api_keys SET label = ? WHERE id = ?').run(label, id).changes;
  if (changed === 0) throw new StoreConflict('not_found', `key ${id} not found`);
  return getKey(db, id) as ApiKey;
}

/** Keys of an account, oldest first; unknown account → not_found. */
export function listKeys(db: Database.Database, accountId: string): ApiKey[] {
  if (!db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(accountId)) {
    throw new StoreConflict('not_found', `account ${accountId} not found`);
  }
  const rows = db
    .prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id')
    .all(accountId) as object[];
  return rows.map((r) => toKey(r));
}

/** Whitelist entries of the embedded store (rule set B, D18). */
import type Database from 'better-sqlite3';
import { newId } from '../ids';
import { cidrRange } from '../ranges';
import { StoreConflict, type WhitelistEntry } from '../types';
import { requireAccount } from './accounts';
import { toWhitelist, type WhitelistRow } from './rows';

/**
 * Add an entry. Overlap with another account's entry → whitelist_overlap (D18); the same block again for the same
 * account returns the existing entry; other overlaps within one account are allowed (harmless).
 */
export function addWhitelist(
  db: Database.Database,
  accountId: string,
  cidr: string,
  now: number,
): WhitelistEntry {
  const range = typeof cidr === 'string' ? cidrRange(cidr) : null;
  if (!range) throw new StoreConflict('invalid_input', `not an IP address or CIDR block: ${String(cidr)}`);
  return db
    .transaction(() => {
      requireAccount(db, accountId);
      const overlapping = db
        .prepare('SELECT * FROM whitelist WHERE family = ? AND range_start <= ? AND range_end >= ?')
        .all(range.family, range.end, range.start) as WhitelistRow[];
      if (overlapping.some((r) => r.account_id !== accountId)) {
        throw new StoreConflict('whitelist_overlap', `${range.cidr} overlaps another account's whitelist`);
      }
      const same = overlapping.find((r) => r.cidr === range.cidr);
      if (same) return toWhitelist(same);
      const row = { id: newId('wl'), account_id: accountId, cidr: range.cidr, created_at: now };
      db.prepare(
        `INSERT INTO whitelist (id, account_id, cidr, family, range_start, range_end, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(row.id, accountId, range.cidr, range.family, range.start, range.end, now);
      return toWhitelist(row);
    })
    .immediate();
}

/** Remove an entry of this account; unknown (or another account's) → not_found. */
export function removeWhitelist(db: Database.Database, accountId: string, entryId: string): void {
  const { changes } = db
    .prepare('DELETE FROM whitelist WHERE id = ? AND account_id = ?')
    .run(entryId, accountId);
  if (changes === 0) throw new StoreConflict('not_found', `whitelist entry ${entryId} not found`);
}

/** Entries of an account, oldest first; unknown account → not_found. */
export function listWhitelist(db: Database.Database, accountId: string): WhitelistEntry[] {
  requireAccount(db, accountId);
  const rows = db
    .prepare('SELECT * FROM whitelist WHERE account_id = ? ORDER BY created_at, id')
    .all(accountId);
  return (rows as WhitelistRow[]).map(toWhitelist);
}

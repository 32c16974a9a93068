/** Whitelist entries of the embedded store (rule set B, D18). */
import type Database from 'better-sqlite3';
import { requireCidr, sameWhitelistRow } from '../checks';
import { newWhitelistRow, toWhitelist } from '../rows';
import { StoreConflict, type WhitelistEntry } from '../types';
import { requireAccount, requireLiveAccount } from './accounts';

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
  const range = requireCidr(cidr);
  return db
    .transaction(() => {
      requireLiveAccount(db, accountId);
      const overlapping = db
        .prepare('SELECT * FROM whitelist WHERE family = ? AND range_start <= ? AND range_end >= ?')
        .all(range.family, range.end, range.start) as { account_id: string; cidr: string }[];
      const same = sameWhitelistRow(overlapping, accountId, range);
      if (same) return toWhitelist(same);
      const row = newWhitelistRow(accountId, range, now);
      db.prepare(
        `INSERT INTO whitelist (id, account_id, cidr, family, range_start, range_end, created_at)
       VALUES (@id, @account_id, @cidr, @family, @range_start, @range_end, @created_at)`,
      ).run(row);
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
    .all(accountId) as object[];
  return rows.map(toWhitelist);
}

/**
 * Single-use marks, the same way in both stores: one upsert statement that inserts the id, or re-arms a mark that
 * has expired, and changes no row while an unexpired mark exists (so "one row changed" means "consumed now").
 * One statement is atomic on SQLite and on PostgreSQL (ON CONFLICT waits for a concurrent insert of the same id).
 */
import { StoreConflict } from './types';

/** Longest accepted id (the column is varchar(200)). */
export const MAX_MARK_ID = 200;

/** Expired marks are pruned at most this often (per store instance, by the callers' `now`). */
const PRUNE_EVERY_MS = 10 * 60_000;

/** Insert, or re-arm an expired mark; parameters: id, expiresAt, now. Changes one row exactly when consumed. */
export const CONSUME_SQL =
  'INSERT INTO single_use (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at WHERE single_use.expires_at <= ?';

/** Whether an unexpired mark exists; parameters: id, now. */
export const CONSUMED_SQL = 'SELECT 1 AS hit FROM single_use WHERE id = ? AND expires_at > ?';

/** Delete expired marks; parameter: now. */
export const PRUNE_SQL = 'DELETE FROM single_use WHERE expires_at <= ?';

/** Throw invalid_input unless the id is a non-empty string of at most 200 characters and the times are integers. */
export function requireMark(id: string, times: number[]): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_MARK_ID)
    throw new StoreConflict('invalid_input', `id must be 1..${MAX_MARK_ID} characters`);
  if (!times.every((t) => Number.isSafeInteger(t)))
    throw new StoreConflict('invalid_input', 'expiresAt and now must be whole epoch milliseconds');
}

/** Decides when to prune expired marks: at most once per ten minutes of callers' time. */
export class MarkPruner {
  private last = -Infinity;
  /** True (and remembers `now`) when a prune is due. */
  due(now: number): boolean {
    if (now - this.last < PRUNE_EVERY_MS && now >= this.last) return false;
    this.last = now;
    return true;
  }
}

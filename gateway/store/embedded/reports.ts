/** Read-only views of the embedded store: slots, usage history, ledger. */
import type Database from 'better-sqlite3';
import { requireLimit } from '../checks';
import { toLedger, toUsage } from '../rows';
import { liveSlots } from '../slot-view';
import type { LedgerEntry, SlotView, UsageRow } from '../types';
import { requireAccount } from './accounts';

/** Live slots of a scope at `now`, earliest first use first. */
export function listSlots(
  db: Database.Database,
  scope: string,
  mode: 'fixed' | 'sliding',
  windowMs: number,
  now: number,
): SlotView[] {
  const rows = db.prepare('SELECT member, first_seen, last_seen FROM slots WHERE scope = ?').all(scope) as {
    member: string;
    first_seen: number;
    last_seen: number;
  }[];
  const entries = rows.map((r) => ({ member: r.member, firstSeen: r.first_seen, lastSeen: r.last_seen }));
  return liveSlots(entries, mode, windowMs, now);
}

/** Usage rows of these subjects between two UTC days inclusive, ordered by day then subject. */
export function usage(
  db: Database.Database,
  subjects: readonly string[],
  fromDay: string,
  toDay: string,
): UsageRow[] {
  if (subjects.length === 0) return [];
  const marks = subjects.map(() => '?').join(', ');
  const rows = db
    .prepare(
      `SELECT day, subject, free, billed, refused FROM usage_daily
       WHERE subject IN (${marks}) AND day >= ? AND day <= ? ORDER BY day, subject`,
    )
    .all(...subjects, fromDay, toDay) as object[];
  return rows.map(toUsage);
}

/** The newest `limit` ledger entries of an account, newest first; unknown account → not_found. */
export function ledger(
  db: Database.Database,
  accountId: string,
  limit: number,
  before?: string,
): LedgerEntry[] {
  requireLimit(limit);
  requireAccount(db, accountId);
  const rows = (
    before === undefined
      ? db
          .prepare('SELECT * FROM ledger WHERE account_id = ? ORDER BY seq DESC LIMIT ?')
          .all(accountId, limit)
      : db
          .prepare(
            `SELECT * FROM ledger WHERE account_id = ? AND seq < (SELECT seq FROM ledger WHERE id = ? AND account_id = ?)
             ORDER BY seq DESC LIMIT ?`,
          )
          .all(accountId, before, accountId, limit)
  ) as object[];
  return rows.map(toLedger);
}

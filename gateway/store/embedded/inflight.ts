/**
 * Crash recovery for the embedded store (issue 13 item 7), on when a reservation timeout is configured: each
 * admission writes its undo record to `embedded_inflight` in the same transaction; keep and release delete it;
 * the sweep (on start-up and periodically) releases admissions older than the timeout that are still there, i.e.
 * those a killed process admitted but never settled. Its own table (created here, like the shared store's drain
 * table), so the shared migrations are unchanged.
 *
 * When on, the log's row is also the admission's release mark (admission.ts `ReleaseMark`): the `admissions` row,
 * which marked the same thing, is no longer written (issue 12: one row per admission to insert and to delete
 * instead of two). The table has no rowid (one b-tree instead of the table plus its primary-key index) on files
 * that create it now; a file that has the older table keeps it, with the same columns.
 */
import type Database from 'better-sqlite3';
import { asEmbeddedUndo, releaseInTransaction, type EmbeddedUndo, type ReleaseMark } from './admission';
import type { HotStatements } from './hot-statements';

/** The in-flight log's statements. */
export class InflightLog implements ReleaseMark {
  private readonly insertSt: Database.Statement;
  private readonly deleteSt: Database.Statement;
  private readonly hasSt: Database.Statement;
  private readonly olderSt: Database.Statement;

  constructor(private readonly db: Database.Database) {
    db.exec(
      `CREATE TABLE IF NOT EXISTS embedded_inflight (
         plan_id TEXT PRIMARY KEY, admitted_at INTEGER NOT NULL, undo TEXT NOT NULL) WITHOUT ROWID`,
    );
    this.insertSt = db.prepare('INSERT INTO embedded_inflight (plan_id, admitted_at, undo) VALUES (?, ?, ?)');
    this.deleteSt = db.prepare('DELETE FROM embedded_inflight WHERE plan_id = ?');
    this.hasSt = db.prepare('SELECT 1 FROM embedded_inflight WHERE plan_id = ?').pluck();
    this.olderSt = db.prepare('SELECT plan_id, undo FROM embedded_inflight WHERE admitted_at < ? LIMIT 1000');
  }

  /** Whether an admission is in flight (admitted, neither kept nor released). */
  has(planId: string): boolean {
    return this.hasSt.get(planId) !== undefined;
  }

  /** Record an admission (call inside its transaction). */
  add(planId: string, admittedAt: number, undo: EmbeddedUndo): void {
    this.insertSt.run(planId, admittedAt, JSON.stringify(undo));
  }

  /** Forget an admission (kept or released); whether it was in flight. */
  remove(planId: string): boolean {
    return this.deleteSt.run(planId).changes > 0;
  }

  /** Release every admission admitted before `cutoff` and still in flight; how many were released. */
  sweep(st: HotStatements, cutoff: number): number {
    let released = 0;
    for (;;) {
      const rows = this.olderSt.all(cutoff) as { plan_id: string; undo: string }[];
      for (const r of rows) {
        this.db
          .transaction(() => releaseInTransaction(st, r.plan_id, asEmbeddedUndo(JSON.parse(r.undo)), this))
          .immediate();
        released += 1;
      }
      if (rows.length < 1000) return released;
    }
  }
}

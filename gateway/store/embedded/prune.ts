/**
 * Pruning of dead rows, at most once per hour of plan time: release marks of admissions older than two days and
 * daily counters of days that ended more than two days ago. Admissions are deleted by rowid (insertion order) up
 * to a mark taken two days earlier, so no index on their time is needed.
 */
import type Database from 'better-sqlite3';
import { utcDay } from '../../core/clock';

const EVERY_MS = 3_600_000;
const KEEP_MS = 2 * 86_400_000;

/** Decides when to prune and remembers (time, highest admissions rowid) marks. */
export class Pruner {
  private last = -Infinity;
  private readonly marks: { at: number; rowid: number }[] = [];

  constructor(private readonly db: Database.Database) {}

  /** Prune when an hour of plan time has passed since the last time. */
  maybePrune(now: number): void {
    if (now - this.last < EVERY_MS) return;
    this.last = now;
    const top = this.db.prepare('SELECT max(rowid) FROM admissions').pluck().get() as number | null;
    this.marks.push({ at: now, rowid: top ?? 0 });
    let cut = 0;
    while (this.marks[0] && this.marks[0].at <= now - KEEP_MS) cut = this.marks.shift()?.rowid ?? cut;
    this.db
      .transaction(() => {
        if (cut > 0) this.db.prepare('DELETE FROM admissions WHERE rowid <= ?').run(cut);
        this.db.prepare('DELETE FROM counters_daily WHERE day < ?').run(utcDay(now - KEEP_MS));
      })
      .immediate();
  }
}

/** Windowed counters on SQLite: one synchronous upsert (see ../throttle.ts), ended windows pruned now and then. */
import type Database from 'better-sqlite3';
import { MarkPruner } from '../single-use';
import { HIT_SQL, PRUNE_WINDOWS_SQL, requireWindow, type WindowCount } from '../throttle';

/** The prepared statements of windowed counters on one database. */
export class EmbeddedWindows {
  private readonly hit: Database.Statement<unknown[], { count: number; reset_at: number }>;
  private readonly prune: Database.Statement;
  private readonly pruner = new MarkPruner();

  constructor(db: Database.Database) {
    this.hit = db.prepare(HIT_SQL);
    this.prune = db.prepare(PRUNE_WINDOWS_SQL);
  }

  /** See Store.hitWindow. */
  hitWindow(name: string, windowMs: number, now: number): WindowCount {
    requireWindow(name, windowMs, now);
    if (this.pruner.due(now)) this.prune.run(now);
    const row = this.hit.get(name, now + windowMs, now, now);
    if (!row) throw new Error('embedded store: the throttle upsert returned no row');
    return { count: Number(row.count), resetAt: Number(row.reset_at) };
  }
}

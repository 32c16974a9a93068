/** Single-use marks on SQLite: one synchronous upsert (see ../single-use.ts), expired marks pruned now and then. */
import type Database from 'better-sqlite3';
import { CONSUME_SQL, CONSUMED_SQL, MarkPruner, PRUNE_SQL, requireMark } from '../single-use';

/** The prepared statements of single-use marks on one database. */
export class EmbeddedMarks {
  private readonly consume: Database.Statement;
  private readonly consumed: Database.Statement;
  private readonly prune: Database.Statement;
  private readonly pruner = new MarkPruner();

  constructor(db: Database.Database) {
    this.consume = db.prepare(CONSUME_SQL);
    this.consumed = db.prepare(CONSUMED_SQL);
    this.prune = db.prepare(PRUNE_SQL);
  }

  /** See Store.consumeOnce. */
  consumeOnce(id: string, expiresAt: number, now: number): boolean {
    requireMark(id, [expiresAt, now]);
    if (expiresAt <= now) return false;
    if (this.pruner.due(now)) this.prune.run(now);
    return this.consume.run(id, expiresAt, now).changes === 1;
  }

  /** See Store.isConsumed. */
  isConsumed(id: string, now: number): boolean {
    requireMark(id, [now]);
    return this.consumed.get(id, now) !== undefined;
  }
}

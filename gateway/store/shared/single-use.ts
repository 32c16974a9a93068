/**
 * Single-use marks in PostgreSQL (not Redis): durable, and one row per id shared by every instance. One upsert
 * statement (see ../single-use.ts); expired marks pruned now and then.
 */
import type { Knex } from 'knex';
import { CONSUME_SQL, CONSUMED_SQL, MarkPruner, PRUNE_SQL, requireMark } from '../single-use';

/** Single-use marks over a knex pool. */
export class SharedMarks {
  private readonly pruner = new MarkPruner();
  constructor(private readonly knex: Knex) {}

  /** See Store.consumeOnce. */
  async consumeOnce(id: string, expiresAt: number, now: number): Promise<boolean> {
    requireMark(id, [expiresAt, now]);
    if (expiresAt <= now) return false;
    if (this.pruner.due(now)) await this.knex.raw(PRUNE_SQL, [now]);
    const res = (await this.knex.raw(CONSUME_SQL, [id, expiresAt, now])) as { rowCount: number | null };
    return res.rowCount === 1;
  }

  /** See Store.isConsumed. */
  async isConsumed(id: string, now: number): Promise<boolean> {
    requireMark(id, [now]);
    const res = (await this.knex.raw(CONSUMED_SQL, [id, now])) as { rows: unknown[] };
    return res.rows.length > 0;
  }
}

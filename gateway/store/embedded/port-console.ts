/**
 * The embedded store's console part: the shared knex reads and single-statement writes, except the batch of recent
 * refusals, which is one synchronous better-sqlite3 transaction like every other multi-statement write here (a knex
 * transaction would stay open across awaits on the connection the admissions commit on).
 */
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { KnexConsoleStore, REFUSAL_KEEP_MS, REFUSALS_PER_ACCOUNT, refusalCells } from '../console-store';
import type { RefusalRecord } from '../ports/console';

/** The console port on one SQLite connection. */
export class EmbeddedConsoleStore extends KnexConsoleStore {
  private write: ((rows: readonly RefusalRecord[], now: number) => void) | null = null;

  constructor(
    private readonly db: Database.Database,
    knex: Knex,
  ) {
    super(knex);
  }

  /** Prepared on first use (the table exists once migrated). */
  private writer(): (rows: readonly RefusalRecord[], now: number) => void {
    if (this.write) return this.write;
    const insert = this.db.prepare(
      'INSERT INTO recent_refusals (account_id, key_id, code, address, host, at) VALUES (@account_id, @key_id, @code, @address, @host, @at)',
    );
    const old = this.db.prepare('DELETE FROM recent_refusals WHERE at < ?');
    const edge = this.db.prepare(
      'SELECT seq FROM recent_refusals WHERE account_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
    );
    const beyond = this.db.prepare('DELETE FROM recent_refusals WHERE account_id = ? AND seq <= ?');
    this.write = this.db.transaction((rows: readonly RefusalRecord[], now: number) => {
      const cells = refusalCells(rows);
      for (const c of cells) insert.run(c);
      old.run(now - REFUSAL_KEEP_MS);
      for (const account of new Set(cells.map((c) => c.account_id))) {
        const row = edge.get(account, REFUSALS_PER_ACCOUNT) as { seq: number } | undefined;
        if (row) beyond.run(account, row.seq);
      }
    });
    return this.write;
  }

  override async recordRefusals(rows: readonly RefusalRecord[], now: number): Promise<void> {
    if (rows.length === 0) return;
    this.writer()(rows, now);
  }
}

/**
 * Opening the SQLite file: one better-sqlite3 connection per store, shared by the hot path and by knex (one writer;
 * `:memory:` works because there is only one connection).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import knexFactory, { type Knex } from 'knex';
import ClientBetterSqlite3 from 'knex/lib/dialects/better-sqlite3';

/** How long a statement waits for another connection's write lock (SQLite's busy handler). */
export const BUSY_TIMEOUT_MS = 5000;

/** What a WAL file left larger is trimmed to when the WAL restarts (journal_size_limit; checkpointer.ts). */
export const WAL_BOUND_BYTES = 64 * 1024 * 1024;

/**
 * Open the database with the pragmas the store relies on. WAL + synchronous=NORMAL: a committed transaction
 * survives a process crash (kill -9); a power loss may lose the last transactions (fsync only at checkpoints).
 */
export function openDatabase(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`journal_size_limit = ${WAL_BOUND_BYTES}`);
  return db;
}

/** A knex instance that runs on `db` itself instead of opening a second connection. */
export function knexOnDatabase(db: Database.Database): Knex {
  class SharedConnectionClient extends ClientBetterSqlite3 {
    override async acquireRawConnection(): Promise<unknown> {
      return db;
    }
    override async destroyRawConnection(): Promise<void> {
      // The store closes the database itself.
    }
  }
  return knexFactory({
    client: SharedConnectionClient as unknown as typeof knexFactory.Client,
    connection: { filename: db.name },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
  });
}

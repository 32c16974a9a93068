/** Which SQLite errors mean "the database cannot be used right now" (unavailable), as opposed to bugs. */

/**
 * SQLite result codes (primary, so extended codes such as SQLITE_IOERR_WRITE match) that mean the database file
 * cannot be used right now: locked, unreadable, disk full or read-only, out of memory. Constraint, schema and
 * misuse errors are bugs and stay out of this list.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|NOMEM|PROTOCOL|READONLY)(_[A-Z_]+)?$/;

/** better-sqlite3's error once the connection was closed (store shut down under a request). */
const CLOSED_DATABASE = /database connection is not open/i;

/** Whether a thrown SQLite (better-sqlite3) error means the database is unavailable. */
export function isSqliteUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SQLITE_UNAVAILABLE.test(code)) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && CLOSED_DATABASE.test(message);
}

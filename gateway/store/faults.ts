/**
 * Store faults, part of the store contract (types.ts): a refusal is a value; a store that cannot answer now
 * (unreachable, reset, timed out, stalled, out of memory, read-only, cluster down, locked file) is a fault that
 * `isStoreUnavailable` recognises, mapped to 503 store_unavailable (or uncounted service with onStoreFailure: open).
 * Anything else a store throws is a bug (500 internal). See docs/shared-state.md, "Failure behaviour".
 */

/** Which database failed. */
export type StoreBackend = 'redis' | 'postgres' | 'sqlite';

/** The store could not answer now (unreachable, or did not answer in time). */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable' as const;
  constructor(
    readonly backend: StoreBackend,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${backend} unavailable: ${message}`, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * SQLite result codes (primary, so extended codes such as SQLITE_IOERR_WRITE match) that mean the database file
 * cannot be used right now: locked, unreadable, disk full or read-only, out of memory. Constraint, schema and
 * misuse errors are bugs and stay out of this list.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|FULL|NOMEM|PROTOCOL|READONLY)(_[A-Z_]+)?$/;

/** better-sqlite3's error once the connection was closed (store shut down under a request). */
const CLOSED_DATABASE = /database connection is not open/i;

/**
 * Whether a raw SQLite (better-sqlite3) error means the database is unavailable. The embedded store wraps such errors
 * into StoreUnavailableError (embedded/faults.ts sqliteFault); the classifier below still knows them unwrapped, so a
 * fault raised at the store's boundary (a wrapper, a test) classifies the same.
 */
export function isSqliteUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SQLITE_UNAVAILABLE.test(code)) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === 'string' && CLOSED_DATABASE.test(message);
}

/**
 * The one classifier (production and tests): whether a thrown store error means the store is unavailable (not a
 * bug). Each store wraps its driver's faults into StoreUnavailableError (embedded/faults.ts, shared/errors.ts).
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 'store_unavailable') return true;
  return isSqliteUnavailable(err);
}

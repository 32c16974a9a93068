/**
 * Store faults, part of the store contract (types.ts): a refusal is a value; a store that cannot answer now
 * (unreachable, reset, timed out, stalled, out of memory, read-only, cluster down, locked file) is a fault that
 * `isStoreUnavailable` recognises, mapped to 503 store_unavailable (or uncounted service with onStoreFailure: open).
 * Anything else a store throws is a bug (500 internal). See docs/shared-state.md, "Failure behaviour".
 */
import { isSqliteUnavailable } from './embedded/faults';

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

/** Whether a thrown store error means the store is unavailable (not a bug). */
export function isStoreUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 'store_unavailable') return true;
  return isSqliteUnavailable(err);
}

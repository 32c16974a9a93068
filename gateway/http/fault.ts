/** Store faults are thrown, never returned (STYLE.md): an unreachable store becomes a StoreFault, a bug stays itself. */
import { isStoreUnavailable } from './store-faults';

/** The store is unreachable: answered 503 store_unavailable, or served uncounted when onStoreFailure is open. */
export class StoreFault extends Error {}

/** What a failed store call throws: a StoreFault when the store is unavailable, else the error itself (a bug, 500). */
export function storeFault(err: unknown): unknown {
  return isStoreUnavailable(err) ? new StoreFault((err as Error).message) : err;
}

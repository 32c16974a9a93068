/** The embedded store's faults: which SQLite errors mean "the database cannot be used right now" (unavailable). */
import { isSqliteUnavailable, StoreUnavailableError } from '../faults';

/** A SQLite failure as the store reports it: an unavailable database becomes StoreUnavailableError('sqlite'). */
export function sqliteFault(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isSqliteUnavailable(err)) return err;
  return new StoreUnavailableError('sqlite', (err as Error).message, { cause: err });
}

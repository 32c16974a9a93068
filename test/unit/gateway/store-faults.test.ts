/** Which store errors mean "store unavailable" (503 or uncounted service) and which are bugs (500 internal). */
import { isStoreUnavailable } from '../../../gateway/http/store-faults';
import { StoreUnavailableError } from '../../../gateway/store/shared/errors';
import { StoreConflict } from '../../../gateway/store/types';

const sqlite = (code: string): Error => Object.assign(new Error(`sqlite said ${code}`), { code });

describe('isStoreUnavailable', () => {
  it.each([
    ['StoreUnavailableError (redis)', new StoreUnavailableError('redis', 'ECONNREFUSED')],
    ['StoreUnavailableError (postgres)', new StoreUnavailableError('postgres', 'timeout')],
    ['an error with code store_unavailable', Object.assign(new Error('x'), { code: 'store_unavailable' })],
    ['SQLITE_BUSY', sqlite('SQLITE_BUSY')],
    ['SQLITE_BUSY_SNAPSHOT', sqlite('SQLITE_BUSY_SNAPSHOT')],
    ['SQLITE_LOCKED', sqlite('SQLITE_LOCKED')],
    ['SQLITE_CANTOPEN', sqlite('SQLITE_CANTOPEN')],
    ['SQLITE_IOERR_WRITE', sqlite('SQLITE_IOERR_WRITE')],
    ['SQLITE_FULL', sqlite('SQLITE_FULL')],
    ['SQLITE_READONLY', sqlite('SQLITE_READONLY')],
    ['a closed better-sqlite3 connection', new TypeError('The database connection is not open')],
  ])('%s → unavailable', (_name, err) => {
    expect(isStoreUnavailable(err)).toBe(true);
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a TypeError (a bug)', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['SQLITE_CONSTRAINT_UNIQUE', sqlite('SQLITE_CONSTRAINT_UNIQUE')],
    ['SQLITE_ERROR (bad SQL)', sqlite('SQLITE_ERROR')],
    ['SQLITE_MISMATCH', sqlite('SQLITE_MISMATCH')],
    ['SQLITE_CORRUPT', sqlite('SQLITE_CORRUPT')],
    ['SQLITE_BUSYNESS (not a SQLite code)', sqlite('SQLITE_BUSYNESS')],
    ['a StoreConflict', new StoreConflict('not_found', 'no such account')],
    ['a string', 'store_unavailable'],
    ['null', null],
  ])('%s → not unavailable (500 internal)', (_name, err) => {
    expect(isStoreUnavailable(err)).toBe(false);
  });
});

/** Key restrictions on the embedded store (issue 15 item 4): the api_keys.restrictions column. */
import type Database from 'better-sqlite3';
import { restrictionsColumn } from '../restrictions';
import { toKey } from '../rows';
import { StoreConflict, type ApiKey, type KeyRestrictions } from '../types';

/** Set (or clear) a key's restrictions; unknown key → not_found, malformed → invalid_input. */
export function setKeyRestrictions(
  db: Database.Database,
  id: string,
  restrictions: KeyRestrictions | null,
): ApiKey {
  const column = restrictionsColumn(restrictions);
  const changed = db.prepare('UPDATE api_keys SET restrictions = ? WHERE id = ?').run(column, id).changes;
  if (changed === 0) throw new StoreConflict('not_found', `key ${id} not found`);
  return toKey(db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as object);
}

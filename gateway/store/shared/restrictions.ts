/** Key restrictions on the shared store (issue 15 item 4): the api_keys.restrictions column in PostgreSQL. */
import type { Knex } from 'knex';
import { restrictionsColumn } from '../restrictions';
import { toKey } from '../rows';
import { StoreConflict, type ApiKey, type KeyRestrictions } from '../types';

/** Set (or clear) a key's restrictions; the key and its hash (for the cache invalidation). */
export async function setKeyRestrictions(
  db: Knex,
  id: string,
  restrictions: KeyRestrictions | null,
): Promise<{ key: ApiKey; hash: string }> {
  const column = restrictionsColumn(restrictions);
  const rows = await db('api_keys').where({ id }).update({ restrictions: column }).returning('*');
  const row = rows[0];
  if (!row) throw new StoreConflict('not_found', `key ${id} not found`);
  return { key: toKey(row), hash: String(row.hash) };
}

/** Admin listings on the embedded store: the shared knex query on the store's own SQLite connection. */
import type { Knex } from 'knex';
import { queryAccounts, queryKeys, type AccountQuery, type KeyQuery } from '../listing';
import type { Account, ApiKey } from '../types';

/** One page of accounts (the balance column is the embedded store's truth). */
export function listAccounts(knex: Knex, query: AccountQuery): Promise<Account[]> {
  return queryAccounts(knex, query);
}

/** One page of keys. */
export function listKeyPage(knex: Knex, query: KeyQuery): Promise<ApiKey[]> {
  return queryKeys(knex, query);
}

/** Admin listings on the shared store: the shared knex query on PostgreSQL; balances come from Redis per account. */
import type { Knex } from 'knex';
import { queryAccounts, queryKeys, type AccountQuery, type KeyQuery } from '../listing';
import type { Account, ApiKey } from '../types';

/** One page of accounts with each balance completed by `withBalance` (Redis holds the live wallet). */
export async function listAccounts(
  knex: Knex,
  query: AccountQuery,
  withBalance: (a: Account) => Promise<Account>,
): Promise<Account[]> {
  const page = await queryAccounts(knex, query);
  return Promise.all(page.map(withBalance));
}

/** One page of keys (PostgreSQL holds every key column). */
export function listKeyPage(knex: Knex, query: KeyQuery): Promise<ApiKey[]> {
  return queryKeys(knex, query);
}

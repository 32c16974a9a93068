/**
 * Admin listings of accounts and keys (issue 14): filters and keyset ("cursor") pagination as one knex query that
 * runs unchanged on SQLite and PostgreSQL. A page continues strictly after the last row seen (sort value, then id),
 * so rows inserted meanwhile never shift a page and every row is seen exactly once.
 */
import type { Knex } from 'knex';
import { normaliseEmail } from './checks';
import { toAccount, toKey } from './rows';
import type { Account, AccountStatus, ApiKey, KeyKind, KeyStatus } from './types';

/** Where the previous page ended: its last row's sort value and id. */
export interface PageAfter {
  value: string | number;
  id: string;
}

/** Filters, order and page of an account listing. Times are epoch ms; `createdTo` is exclusive. */
export interface AccountQuery {
  /** Lower-case e-mail prefix (matched against the normalised address). */
  emailPrefix?: string;
  status?: AccountStatus;
  /** true: on an Unlimited plan or holding an active Unlimited package key at `now`; false: neither. */
  unlimited?: boolean;
  createdFrom?: number;
  createdTo?: number;
  sort: 'created' | 'email';
  order: 'asc' | 'desc';
  after?: PageAfter;
  limit: number;
  now: number;
}

/** Filters, order and page of a key listing. */
export interface KeyQuery {
  accountId?: string;
  status?: KeyStatus;
  /** The kind at `now` (an expired Unlimited package key counts as payg). */
  kind?: KeyKind;
  createdFrom?: number;
  createdTo?: number;
  order: 'asc' | 'desc';
  after?: PageAfter;
  limit: number;
  now: number;
}

/** `LIKE` pattern for a prefix, with `\` escaping the wildcards. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Add created range and keyset conditions shared by both listings. */
function pageOf(
  q: Knex.QueryBuilder,
  column: string,
  query: {
    createdFrom?: number;
    createdTo?: number;
    order: 'asc' | 'desc';
    after?: PageAfter;
    limit: number;
  },
  createdColumn: string,
  idColumn: string,
): Knex.QueryBuilder {
  if (query.createdFrom !== undefined) q.where(createdColumn, '>=', query.createdFrom);
  if (query.createdTo !== undefined) q.where(createdColumn, '<', query.createdTo);
  const after = query.after;
  if (after) {
    const op = query.order === 'asc' ? '>' : '<';
    q.where((w) => {
      w.where(column, op, after.value).orWhere((e) =>
        e.where(column, after.value).where(idColumn, op, after.id),
      );
    });
  }
  return q
    .orderBy([
      { column, order: query.order },
      { column: idColumn, order: query.order },
    ])
    .limit(query.limit);
}

/** Whether an account has an active Unlimited package key at `now` (rule set A's plan). */
function unlimitedKeyExists(knex: Knex, now: number): Knex.QueryBuilder {
  return knex('api_keys as uk')
    .select(knex.raw('1'))
    .whereRaw('uk.account_id = a.id')
    .where('uk.kind', 'unlimited')
    .where('uk.status', 'active')
    .where((w) => w.whereNull('uk.package_until').orWhere('uk.package_until', '>', now));
}

/** One page of accounts (balances as stored in the table). */
export async function queryAccounts(knex: Knex, query: AccountQuery): Promise<Account[]> {
  const q = knex('accounts as a').select('a.*');
  if (query.emailPrefix !== undefined) {
    q.whereRaw(`a.email_norm LIKE ? ESCAPE '\\'`, [likePrefix(query.emailPrefix)]);
  }
  if (query.status !== undefined) q.where('a.status', query.status);
  if (query.unlimited !== undefined) {
    const now = query.now;
    const onPlan = (w: Knex.QueryBuilder): void => {
      // COALESCE: NOT (NULL > now) would drop accounts that never had a plan from the `false` side.
      w.whereRaw('COALESCE(a.unlimited_until, 0) > ?', [now]).orWhereExists(unlimitedKeyExists(knex, now));
    };
    if (query.unlimited) q.where(onPlan);
    else q.whereNot(onPlan);
  }
  const column = query.sort === 'email' ? 'a.email_norm' : 'a.created_at';
  const rows: object[] = await pageOf(q, column, query, 'a.created_at', 'a.id');
  return rows.map(toAccount);
}

/** One page of keys. */
export async function queryKeys(knex: Knex, query: KeyQuery): Promise<ApiKey[]> {
  const q = knex('api_keys as k').select('k.*');
  if (query.accountId !== undefined) q.where('k.account_id', query.accountId);
  if (query.status !== undefined) q.where('k.status', query.status);
  if (query.kind !== undefined) {
    const now = query.now;
    const unlimitedNow = (w: Knex.QueryBuilder): void => {
      w.where('k.kind', 'unlimited').where((p) =>
        p.whereNull('k.package_until').orWhere('k.package_until', '>', now),
      );
    };
    if (query.kind === 'unlimited') q.where(unlimitedNow);
    else q.whereNot(unlimitedNow);
  }
  const rows: object[] = await pageOf(q, 'k.created_at', query, 'k.created_at', 'k.id');
  return rows.map((r) => toKey(r));
}

/** Sort value of an account for the next page's cursor. */
export function accountSortValue(account: Account, sort: AccountQuery['sort']): string | number {
  return sort === 'email' ? normaliseEmail(account.email) : account.createdAt;
}

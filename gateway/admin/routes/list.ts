/**
 * Admin listings (issue 14): GET /accounts/list and GET /keys, with filters, sorting and cursor pagination. Answers
 * `{ items, nextCursor }`; nextCursor is null on the last page. (GET /accounts stays the lookup by e-mail.)
 */
import type { Request, Response, Router } from 'express';
import { normaliseEmail } from '../../store/checks';
import { accountSortValue, type AccountQuery, type KeyQuery } from '../../store/listing';
import type { AccountStatus, KeyKind, KeyStatus } from '../../store/types';
import { decodeCursor, encodeCursor } from '../cursor';
import type { AdminDeps } from '../deps';
import { route } from '../http';
import { invalid } from '../problem';
import * as v from '../validate';
import { accountSummary, keyView } from '../views';

/** Page size when none is asked for, and the largest allowed. */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

const ACCOUNT_PARAMS = [
  'emailPrefix',
  'status',
  'plan',
  'createdFrom',
  'createdTo',
  'sort',
  'order',
  'limit',
  'cursor',
];
const KEY_PARAMS = ['account', 'status', 'kind', 'createdFrom', 'createdTo', 'order', 'limit', 'cursor'];

/** One of `allowed`, or undefined when absent. */
function oneOf<T extends string>(
  param: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw invalid(param, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
  }
  return value as T;
}

/** A day (YYYY-MM-DD, UTC) or an ISO 8601 date-time with a time zone, as epoch ms; `to` days include the whole day. */
export function timeParam(param: string, value: string | undefined, end: boolean): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const start = Date.parse(`${v.day(param, value)}T00:00:00Z`);
    return end ? start + 86_400_000 : start;
  }
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
    ? Date.parse(value)
    : NaN;
  if (Number.isNaN(ms)) {
    throw invalid(param, 'must be a day YYYY-MM-DD or an ISO 8601 date-time with a time zone');
  }
  return ms;
}

/** The page size: a whole number from 1 to MAX_PAGE. */
function limitParam(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAGE;
  const n = /^[0-9]{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_PAGE)) throw invalid('limit', `must be a whole number from 1 to ${MAX_PAGE}`);
  return n;
}

/** The created range, refusing an empty one. */
function createdRange(q: Record<string, string | undefined>): { createdFrom?: number; createdTo?: number } {
  const createdFrom = timeParam('createdFrom', q.createdFrom, false);
  const createdTo = timeParam('createdTo', q.createdTo, true);
  if (createdFrom !== undefined && createdTo !== undefined && createdFrom >= createdTo) {
    throw invalid('createdFrom', 'must be before createdTo');
  }
  return {
    ...(createdFrom !== undefined ? { createdFrom } : {}),
    ...(createdTo !== undefined ? { createdTo } : {}),
  };
}

/** The account listing's query from the request's parameters. */
function accountQuery(deps: AdminDeps, raw: unknown): AccountQuery {
  const q = v.parseQuery(raw, ACCOUNT_PARAMS);
  const plans =
    deps.rules.unlimited === 'account-plan'
      ? (['unlimited', 'credits'] as const)
      : (['unlimited', 'payg'] as const);
  const plan = oneOf<string>('plan', q.plan, plans);
  const sort = oneOf('sort', q.sort, ['created', 'email'] as const) ?? 'created';
  const order = oneOf('order', q.order, ['asc', 'desc'] as const) ?? 'asc';
  const status = oneOf<AccountStatus>('status', q.status, ['active', 'suspended', 'deleted']);
  return {
    ...(q.emailPrefix !== undefined ? { emailPrefix: normaliseEmail(q.emailPrefix) } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(plan !== undefined ? { unlimited: plan === 'unlimited' } : {}),
    ...createdRange(q),
    sort,
    order,
    ...(q.cursor !== undefined ? { after: decodeCursor(`${sort}:${order}`, q.cursor) } : {}),
    limit: limitParam(q.limit),
    now: deps.clock.now(),
  };
}

/** The key listing's query from the request's parameters. */
function keyQuery(deps: AdminDeps, raw: unknown): KeyQuery {
  const q = v.parseQuery(raw, KEY_PARAMS);
  const order = oneOf('order', q.order, ['asc', 'desc'] as const) ?? 'asc';
  const status = oneOf<KeyStatus>('status', q.status, ['active', 'revoked']);
  const kind = oneOf<KeyKind>('kind', q.kind, ['payg', 'unlimited']);
  return {
    ...(q.account !== undefined ? { accountId: q.account } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...createdRange(q),
    order,
    ...(q.cursor !== undefined ? { after: decodeCursor(`created:${order}`, q.cursor) } : {}),
    limit: limitParam(q.limit),
    now: deps.clock.now(),
  };
}

/** GET /accounts/list: one page of account summaries. */
async function listAccounts(deps: AdminDeps, req: Request, res: Response): Promise<void> {
  const query = accountQuery(deps, req.query);
  const page = await deps.store.listAccounts({ ...query, limit: query.limit + 1 });
  const items = page.slice(0, query.limit);
  const last = items[items.length - 1];
  const nextCursor =
    page.length > query.limit && last
      ? encodeCursor(`${query.sort}:${query.order}`, {
          value: accountSortValue(last, query.sort),
          id: last.id,
        })
      : null;
  res.json({ items: items.map((a) => accountSummary(deps.rules, a)), nextCursor });
}

/** Register the listing routes; mounted before accounts.ts so /accounts/list is not taken for an account id. */
export function listRoutes(router: Router, deps: AdminDeps): void {
  route(router, '/accounts/list', { get: (req, res) => listAccounts(deps, req, res) });
  route(router, '/keys', {
    get: async (req, res) => {
      const query = keyQuery(deps, req.query);
      const page = await deps.store.listKeyPage({ ...query, limit: query.limit + 1 });
      const items = page.slice(0, query.limit);
      const last = items[items.length - 1];
      const nextCursor =
        page.length > query.limit && last
          ? encodeCursor(`created:${query.order}`, { value: last.createdAt, id: last.id })
          : null;
      res.json({ items: items.map((k) => keyView(k, query.now)), nextCursor });
    },
  });
}

/** Usage history per UTC day for an account and each of its keys. */
import type { Router } from 'express';
import { DAY_MS, utcDay } from '../../core/clock';
import type { UsageRow } from '../../store/types';
import type { RouteDeps } from '../deps';
import { route } from '../http';
import { invalid } from '../problem';
import * as v from '../validate';
import { param } from './common';

/** Longest range one request may ask for, in days (inclusive). */
export const MAX_USAGE_DAYS = 366;
const DEFAULT_DAYS = 30;

const dayMs = (d: string): number => Date.parse(`${d}T00:00:00Z`);

/** The inclusive day range asked for; default the last 30 days up to today (UTC). */
export function usageRange(
  query: Record<string, string | undefined>,
  now: number,
): { from: string; to: string } {
  const to = query.to === undefined ? utcDay(now) : v.day('to', query.to);
  const from =
    query.from === undefined ? utcDay(dayMs(to) - (DEFAULT_DAYS - 1) * DAY_MS) : v.day('from', query.from);
  if (dayMs(from) > dayMs(to)) throw invalid('from', `must not be after to (${to})`);
  if ((dayMs(to) - dayMs(from)) / DAY_MS + 1 > MAX_USAGE_DAYS) {
    throw invalid('from', `the range may span at most ${MAX_USAGE_DAYS} days`);
  }
  return { from, to };
}

type Counts = { free: number; billed: number; refused: number };

/** One entry per day of the range (zeros included): the account's counts and each key's that has any. */
export function usageDays(rows: UsageRow[], accountId: string, from: string, to: string) {
  const days = new Map<string, Counts & { keys: Record<string, Counts> }>();
  for (let t = dayMs(from); t <= dayMs(to); t += DAY_MS) {
    days.set(utcDay(t), { free: 0, billed: 0, refused: 0, keys: {} });
  }
  for (const row of rows) {
    const d = days.get(row.day);
    if (!d) continue;
    const counts = { free: row.free, billed: row.billed, refused: row.refused };
    if (row.subject === `account:${accountId}`) Object.assign(d, counts);
    else if (row.subject.startsWith('key:')) d.keys[row.subject.slice(4)] = counts;
  }
  return [...days].map(([day, d]) => ({ day, ...d }));
}

/** Register GET /accounts/:id/usage?from&to. */
export function usageRoutes(router: Router, deps: RouteDeps): void {
  const { store, clock, accounts } = deps;
  route(router, '/accounts/:id/usage', {
    get: async (req, res) => {
      const { from, to } = usageRange(v.parseQuery(req.query, ['from', 'to']), clock.now());
      const account = await accounts.account(param(req, 'id'));
      const keys = await store.listKeys(account.id);
      const subjects = [`account:${account.id}`, ...keys.map((k) => `key:${k.id}`)];
      const rows = await store.usage(subjects, from, to);
      res.json({ accountId: account.id, from, to, days: usageDays(rows, account.id, from, to) });
    },
  });
}

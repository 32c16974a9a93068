/** Usage history of the account or one of its keys: today against the free allowance, and the last 30 days. */
import { nextUtcMidnight, utcDay } from '../../gateway/core/clock';
import { lastDays, rangeDays, type UsageRange } from './usage-range';
import type { AppContext } from '../context';
import { ownKey } from './keys';
import { iso } from './views';

type Deps = Pick<AppContext, 'store' | 'rules' | 'clock' | 'accounts'>;

export const USAGE_DAYS = 30;

/** One day's counts. */
export interface DayCounts {
  day: string;
  free: number;
  billed: number;
  refused: number;
}

/** What the usage page and `GET /api/usage` show. */
export interface UsageReport {
  /** "account" or a key id of the account. */
  subject: string;
  /** Free requests per UTC day (A: per key; B: per account). */
  allowance: number;
  today: DayCounts;
  /** Next 00:00 UTC, when the counters reset (D13). */
  resetAt: string;
  /** The range shown (`days` covers it, oldest first). */
  range?: UsageRange;
  days: DayCounts[];
}

/**
 * The usage of `subject` ("account" or a key id of this account) over `range` (default the last USAGE_DAYS UTC days);
 * `today` is always today's counts, whatever the range.
 */
export async function usageReport(
  d: Deps,
  accountId: string,
  subject: string,
  range?: UsageRange,
): Promise<UsageReport> {
  const storeSubject =
    subject === 'account' ? `account:${accountId}` : `key:${(await ownKey(d, accountId, subject)).id}`;
  const now = d.clock.now();
  const today = utcDay(now);
  const r = range ?? lastDays(now, USAGE_DAYS);
  const from = r.from < today ? r.from : today;
  const rows = await d.store.usage([storeSubject], from, r.to > today ? r.to : today);
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const counts = (day: string): DayCounts => {
    const row = byDay.get(day);
    return { day, free: row?.free ?? 0, billed: row?.billed ?? 0, refused: row?.refused ?? 0 };
  };
  return {
    subject,
    allowance: d.rules.limits.freePerDay,
    today: counts(today),
    resetAt: iso(nextUtcMidnight(now)) as string,
    range: r,
    days: rangeDays(r).map(counts),
  };
}

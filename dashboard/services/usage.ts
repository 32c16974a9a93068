/** Usage history of the account or one of its keys: today against the free allowance, and the last 30 days. */
import { DAY_MS, nextUtcMidnight, utcDay } from '../../gateway/core/clock';
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
  days: DayCounts[];
}

/** The usage of `subject` ("account" or a key id of this account) over the last USAGE_DAYS UTC days. */
export async function usageReport(d: Deps, accountId: string, subject: string): Promise<UsageReport> {
  const storeSubject =
    subject === 'account' ? `account:${accountId}` : `key:${(await ownKey(d, accountId, subject)).id}`;
  const now = d.clock.now();
  const to = utcDay(now);
  const from = utcDay(now - (USAGE_DAYS - 1) * DAY_MS);
  const rows = await d.store.usage([storeSubject], from, to);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days: DayCounts[] = [];
  for (let i = USAGE_DAYS - 1; i >= 0; i--) {
    const day = utcDay(now - i * DAY_MS);
    const r = byDay.get(day);
    days.push({ day, free: r?.free ?? 0, billed: r?.billed ?? 0, refused: r?.refused ?? 0 });
  }
  return {
    subject,
    allowance: d.rules.limits.freePerDay,
    today: days[days.length - 1] as DayCounts,
    resetAt: iso(nextUtcMidnight(now)) as string,
    days,
  };
}

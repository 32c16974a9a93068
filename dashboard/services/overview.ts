/**
 * The overview's state from data the store already keeps: whether requests are being refused now, the free
 * allowance used and left today, and how long the balance lasts at the last 7 days' spending. No per-request write:
 * refusals are counted per day in the usage rows (the admit stage's recordRefusal), charges are ledger rows.
 */
import { utcDay } from '../../gateway/core/clock';
import type { Account } from '../../gateway/store/types';
import type { AppContext } from '../context';
import type { UsageReport } from './usage';

type Deps = Pick<AppContext, 'store' | 'rules' | 'clock'>;

/** What the overview says about the account today. */
export interface OverviewState {
  /** Requests are being refused: the last ones were, and nothing lets the next through. */
  refusing: { lastPaidHour: number | null; count: number; since: number | null } | null;
  /** Free requests today: used, and left (across the active keys in rule set A). */
  free: { used: number; left: number };
  /** Money spent per day over the last 7 days (integer units, rounded up) and the whole days the balance lasts. */
  burn: { perDay: number; days: number } | null;
}

/** Refusals for want of money or allowance: the ones a top-up ends. */
const MONEY_CODES: ReadonlySet<string> = new Set(['no_credits', 'quota_exceeded']);

/**
 * When the current run of refusals began: the oldest refusal for want of money or allowance at or after `from` (the
 * hour the balance last paid in, else today's start) among the recent refusals the gateway records per account (24 h,
 * written within a second of the refusal); null when none is recorded yet.
 */
async function refusedSince(store: Deps['store'], accountId: string, from: number): Promise<number | null> {
  const rows = await store.recentRefusals(accountId, from, 1000);
  let first: number | null = null;
  for (const r of rows) if (MONEY_CODES.has(r.code) && (first === null || r.at < first)) first = r.at;
  return first;
}

/** Days the balance lasts at `perDay` (whole days, down); null when nothing is spent. */
export function daysToEmpty(balance: number, perDay: number): number | null {
  return perDay <= 0 ? null : Math.floor(balance / perDay);
}

/** The overview state of `account` from its usage report (the last 30 days) and a few reads. */
export async function overviewState(d: Deps, account: Account, usage: UsageReport): Promise<OverviewState> {
  const { rules, clock, store } = d;
  const now = clock.now();
  const allowance = rules.limits.freePerDay;
  const price = rules.limits.pricePerRequest;
  let used = usage.today.free;
  let left = Math.max(0, allowance - used);
  let exhausted = used >= allowance;
  const unlimited = account.unlimitedUntil !== null && account.unlimitedUntil > now;
  if (rules.keyedAllowance === 'key-and-network') {
    // Rule set A: each pay-per-use key has its own allowance.
    const keys = (await store.listKeys(account.id)).filter(
      (k) => k.status === 'active' && !(k.packageUntil !== null && k.packageUntil > now),
    );
    const today = utcDay(now);
    const rows =
      keys.length === 0
        ? []
        : await store.usage(
            keys.map((k) => `key:${k.id}`),
            today,
            today,
          );
    const byKey = new Map(rows.map((r) => [r.subject, r.free]));
    used = 0;
    left = 0;
    exhausted = false;
    for (const k of keys) {
      const f = byKey.get(`key:${k.id}`) ?? 0;
      used += f;
      left += Math.max(0, allowance - f);
      if (f >= allowance) exhausted = true;
    }
  }
  const cannotPay = account.balance < price && !(rules.unlimited === 'account-plan' && unlimited);
  let refusing: OverviewState['refusing'] = null;
  if (usage.today.refused > 0 && cannotPay && exhausted) {
    // Charges are one ledger row per key and UTC hour (D35) and refusals are counted per day, never timed: the
    // newest charge row of today says in which hour the balance last paid (the refusals began after it). Without
    // one, the balance paid nothing today and the refusals began when the free allowance ran out.
    const [last] = await store.ledger(account.id, 1);
    const hour = last && last.kind === 'charge' ? (last.hourStart ?? last.createdAt) : null;
    const lastPaidHour = hour !== null && utcDay(hour) === utcDay(now) ? hour : null;
    refusing = {
      lastPaidHour,
      count: usage.today.refused,
      since: await refusedSince(store, account.id, lastPaidHour ?? Date.parse(`${utcDay(now)}T00:00:00Z`)),
    };
  }
  const week = usage.days.slice(-7);
  const billed = week.reduce((n, day) => n + day.billed, 0);
  const perDay = Math.ceil((billed * price) / 7);
  const days = daysToEmpty(account.balance, perDay);
  return { refusing, free: { used, left }, burn: days === null ? null : { perDay, days } };
}

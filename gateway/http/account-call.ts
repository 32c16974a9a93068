/**
 * Account endpoints of the drop-in hosts (issue 16 item 4): LocationIQ `/v1/balance`, ipinfo `/me`, Nominatim
 * `/status`. Never counted (no admission, no slot, no usage row): the caller is identified by the same stages as any
 * request (gateway/http/stages/account.ts), and the key's or account's free allowance is read from the usage history.
 */
import type { AccountView, Rate } from '../../adapters/types';
import { utcDay } from '../core/clock';
import type { IpAddress } from '../net/address';
import type { Identity } from '../policy/identity';
import { planAdmission } from '../policy/planner';
import type { RuleSet } from '../policy/ruleset';
import type { AdmissionPlan, Store } from '../store/types';
import { resetUnix } from './headers';

/** The daily free allowance of an admission plan, or null when its overflow is free (Unlimited, D5/D17). */
export function rateOf(plan: AdmissionPlan, quota: { used: number; limit: number } | null): Rate | null {
  if (quota === null || plan.overflow.kind === 'free') return null;
  return { limit: quota.limit, remaining: Math.max(0, quota.limit - quota.used), reset: resetUnix(plan.now) };
}

/** The caller's allowance today and its usage today and this month, from the usage history (one store read). */
export async function accountView(
  rules: RuleSet,
  store: Pick<Store, 'usage'>,
  now: number,
  identity: Identity,
  address: IpAddress,
): Promise<AccountView> {
  const plan = planAdmission({ rules, identity, address, now, id: 'account-view' });
  const today = utcDay(now);
  const subject = plan.usage[0] as string;
  const rows = await store.usage(plan.usage, `${today.slice(0, 8)}01`, today);
  let month = 0;
  let todayCount = 0;
  const freeToday = new Map<string, number>();
  for (const row of rows) {
    if (row.subject === subject) month += row.free + row.billed;
    if (row.subject === subject && row.day === today) todayCount = row.free + row.billed;
    if (row.day === today) freeToday.set(row.subject, row.free);
  }
  // The counter with the fewest remaining among those the history records (a network counter is not recorded).
  const counters = plan.free.filter((c) => freeToday.has(c.id) || plan.usage.includes(c.id));
  const tightest = counters
    .map((c) => ({ used: freeToday.get(c.id) ?? 0, limit: c.limit }))
    .sort((a, b) => a.limit - a.used - (b.limit - b.used))[0];
  const rate = rateOf(plan, tightest ?? null);
  const account = identity.kind === 'anonymous' ? null : identity.account;
  const price = rules.limits.pricePerRequest;
  const paid =
    plan.overflow.kind === 'bill' && account !== null && price > 0
      ? Math.floor(account.balance / price)
      : null;
  return { rate, today: todayCount, month, paid };
}

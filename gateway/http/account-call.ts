/**
 * Account endpoints of the drop-in hosts (issue 16 item 4): LocationIQ `/v1/balance`, ipinfo `/me`, Nominatim
 * `/status`. Never counted (no admission, no slot, no usage row): the caller is identified by the same stages as any
 * request (gateway/http/stages/account.ts), and the key's or account's free allowance is read from the usage history.
 */
import type { AccountDetail, AccountView, Rate } from '../../adapters/types';
import { nextUtcMidnight, utcDay } from '../core/clock';
import type { IpAddress } from '../net/address';
import type { Identity } from '../policy/identity';
import { hasValidPackage, hasValidPlan, planAdmission } from '../policy/planner';
import { formatMoney, type RuleSet } from '../policy/ruleset';
import type { Account, AdmissionPlan, SlotView } from '../store/types';
import type { AdmissionStore } from '../store/ports';
import { resetUnix } from './headers';

/** The daily free allowance of an admission plan, or null when its overflow is free (Unlimited, D5/D17). */
export function rateOf(plan: AdmissionPlan, quota: { used: number; limit: number } | null): Rate | null {
  if (quota === null || plan.overflow.kind === 'free') return null;
  return { limit: quota.limit, remaining: Math.max(0, quota.limit - quota.used), reset: resetUnix(plan.now) };
}

/** The store reads an account view makes: the usage history; for a keyed or whitelisted caller, its account and slots. */
export type AccountReads = Pick<AdmissionStore, 'usage' | 'getAccount' | 'listSlots'>;

/**
 * The caller's allowance today and its usage today and this month, from the usage history (one store read). For a
 * caller whose requests past the allowance are billed, also the account read fresh (the balance pays for
 * `paid`; the identity's copy may come from a key cache, which both stores keep); with `detail`, also the account's
 * Unlimited end and IP slots. The reads run in parallel.
 */
export async function accountView(
  rules: RuleSet,
  store: AccountReads,
  now: number,
  identity: Identity,
  address: IpAddress,
  detail = false,
): Promise<AccountView> {
  const plan = planAdmission({ rules, identity, address, now, id: 'account-view' });
  const billed = plan.overflow.kind === 'bill' && rules.limits.pricePerRequest > 0;
  if (identity.kind === 'anonymous' || (!detail && !billed)) return usageView(plan, store);
  const [view, fresh, held] = await Promise.all([
    usageView(plan, store),
    store.getAccount(identity.account.id),
    detail ? Promise.all(plan.slots.map((s) => store.listSlots(s.scope, s.mode, s.windowMs, now))) : null,
  ]);
  const account = fresh ?? identity.account;
  const paid = billed ? Math.floor(account.balance / rules.limits.pricePerRequest) : null;
  if (held === null) return { ...view, paid };
  return { ...view, paid, detail: accountDetail(rules, plan, identity, account, held) };
}

/** The allowance and usage part of a view (one read of the usage history); `paid` is the caller's to fill in. */
async function usageView(plan: AdmissionPlan, store: Pick<AdmissionStore, 'usage'>): Promise<AccountView> {
  const now = plan.now;
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
  return { rate, today: todayCount, month, paid: null };
}

/**
 * The account detail of a keyed or whitelisted caller from its account as read fresh and the slot views of each of
 * its plan's slot sets: the balance, the Unlimited package (A: the key's) or plan (B: the account's) in force, and
 * the slot sets, each with its capacity, slots in use and when the first one frees.
 */
function accountDetail(
  rules: RuleSet,
  plan: AdmissionPlan,
  identity: Exclude<Identity, { kind: 'anonymous' }>,
  account: Account,
  held: SlotView[][],
): AccountDetail {
  const now = plan.now;
  const key = identity.kind === 'key' ? identity.key : null;
  const unlimitedUntil =
    rules.unlimited === 'package-key'
      ? key !== null && hasValidPackage(key, now)
        ? key.packageUntil
        : null
      : hasValidPlan(account, now)
        ? account.unlimitedUntil
        : null;
  return {
    account: { id: account.id, status: account.status },
    key:
      key === null
        ? null
        : {
            id: key.id,
            prefix: key.prefix,
            label: key.label,
            kind: rules.unlimited === 'package-key' && hasValidPackage(key, now) ? 'unlimited' : 'payg',
          },
    balance: { units: account.balance, amount: formatMoney(rules, account.balance), unit: rules.moneyUnit },
    unlimitedUntil,
    slots: plan.slots.map((spec, i) => {
      const views = held[i] ?? [];
      const frees = views.map((v) => v.freesAt).filter((t) => t > now);
      return {
        scope: spec.scope.startsWith('account:') ? ('account' as const) : ('key' as const),
        capacity: spec.capacity,
        inUse: views.filter((v) => v.freesAt > now).length,
        nextFreeAt: frees.length === 0 ? null : Math.min(...frees),
      };
    }),
    resetsAt: nextUtcMidnight(now),
  };
}

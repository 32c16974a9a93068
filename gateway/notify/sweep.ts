/**
 * The periodic sweep: low balances (told once per crossing of the account's threshold) and Unlimited packages or
 * plans ending within 7 days (told once per end). Every instance sweeps; the store's insert-once and its
 * conditional arming keep each event single.
 */
import type { Clock } from '../core/clock';
import type { RuleSet } from '../policy/ruleset';
import type { NotificationSettings } from '../store/notifications';
import type { AccountStore, NotificationStore, SecurityStore } from '../store/ports';
import { endingNotice, expiringNotice, lowBalanceNotice, type Notice } from './events';

const WEEK_MS = 7 * 86_400_000;
/** Accounts read per page of the low-balance list. */
const WATCH_PAGE = 1_000;
/** Events, deliveries and attempts are kept this long (the log shows the newest only). */
const KEEP_MS = 90 * 86_400_000;

/** What the sweep reads and records. */
export interface SweepDeps {
  store: Pick<
    NotificationStore & AccountStore,
    'lowBalanceWatch' | 'getAccount' | 'armLowBalance' | 'unlimitedEnding' | 'pruneNotifications'
  > &
    /** The key-expiry reminder's reads and marks (every store has them; a sweep over a store without skips it). */
    Partial<Pick<SecurityStore, 'keysExpiring' | 'markKeyExpiryNotified'>>;
  rules: RuleSet;
  clock: Clock;
  /** Days before a key's end date that its owner is reminded (config keyExpiryReminderDays; default 7). */
  keyExpiryDays?: number;
  record(n: Notice): Promise<unknown>;
}

/**
 * Low balance, one account: below the threshold and armed → record the crossing's event, then disarm (a crash in
 * between records it again: the same id, stored once); at or above it and disarmed → re-arm for the next crossing
 * (a top-up, or a refund, brought it back).
 */
async function lowBalance(d: SweepDeps, s: NotificationSettings): Promise<void> {
  const threshold = s.lowBalanceThreshold;
  if (threshold === null) return;
  const account = await d.store.getAccount(s.accountId);
  if (!account || account.status !== 'active') return;
  if (account.balance < threshold && s.lowBalanceArmed) {
    await d.record(lowBalanceNotice(d.rules, account.id, s.lowBalanceSeq, account.balance, threshold));
    await d.store.armLowBalance(account.id, s.lowBalanceSeq, false);
  } else if (account.balance >= threshold && !s.lowBalanceArmed) {
    await d.store.armLowBalance(account.id, s.lowBalanceSeq, true);
  }
}

/** Keys read per page of the key-expiry reminder. */
const EXPIRING_PAGE = 500;

/**
 * Key end dates within the reminder's days: record the reminder (insert-once by key and end), then mark the key
 * reminded, so the next sweep (of any instance) does not list it again. A crash in between records it again:
 * the same event id, stored once. A key whose mark another instance set first is skipped.
 */
async function keyExpiry(d: SweepDeps, now: number): Promise<void> {
  const { keysExpiring, markKeyExpiryNotified } = d.store;
  if (!keysExpiring || !markKeyExpiryNotified) return;
  const until = now + (d.keyExpiryDays ?? 7) * 86_400_000;
  for (;;) {
    const page = await keysExpiring.call(d.store, now, until, EXPIRING_PAGE);
    for (const k of page) {
      await d.record(expiringNotice(k));
      await markKeyExpiryNotified.call(d.store, k.id, k.expiresAt, now);
    }
    if (page.length < EXPIRING_PAGE) break;
  }
}

/**
 * One sweep. One account's failure (or one step's) does not stop the others: every account and step is tried, and
 * the first failure is thrown at the end for the caller to log.
 */
export async function sweepOnce(d: SweepDeps): Promise<void> {
  const failures: unknown[] = [];
  const attempt = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (err) {
      failures.push(err);
    }
  };
  await attempt(async () => {
    // Page by page in account order, so every watched account is swept however many there are.
    for (let after: string | null = null; ;) {
      const page = await d.store.lowBalanceWatch(after, WATCH_PAGE);
      for (const s of page) await attempt(() => lowBalance(d, s));
      if (page.length < WATCH_PAGE) break;
      after = (page[page.length - 1] as NotificationSettings).accountId;
    }
  });
  const now = d.clock.now();
  await attempt(async () => {
    for (const e of await d.store.unlimitedEnding(now, now + WEEK_MS)) {
      await attempt(() => d.record(endingNotice(e.accountId, e.keyId, e.until)));
    }
  });
  await attempt(() => keyExpiry(d, now));
  await attempt(() => d.store.pruneNotifications(now - KEEP_MS));
  if (failures.length > 0) throw failures[0];
}

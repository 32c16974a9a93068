/**
 * The periodic sweep: low balances (told once per crossing of the account's threshold) and Unlimited packages or
 * plans ending within 7 days (told once per end). Every instance sweeps; the store's insert-once and its
 * conditional arming keep each event single.
 */
import type { Clock } from '../core/clock';
import type { RuleSet } from '../policy/ruleset';
import type { Store } from '../store/types';
import { endingNotice, lowBalanceNotice, type Notice } from './events';

const WEEK_MS = 7 * 86_400_000;
/** Events, deliveries and attempts are kept this long (the log shows the newest only). */
const KEEP_MS = 90 * 86_400_000;

/** What the sweep reads and records. */
export interface SweepDeps {
  store: Pick<
    Store,
    'lowBalanceWatch' | 'getAccount' | 'armLowBalance' | 'unlimitedEnding' | 'pruneNotifications'
  >;
  rules: RuleSet;
  clock: Clock;
  record(n: Notice): Promise<unknown>;
}

/**
 * Low balance, one account: below the threshold and armed → record the crossing's event, then disarm (a crash in
 * between records it again: the same id, stored once); at or above it and disarmed → re-arm for the next crossing
 * (a top-up, or a refund, brought it back).
 */
async function lowBalance(d: SweepDeps): Promise<void> {
  for (const s of await d.store.lowBalanceWatch()) {
    const threshold = s.lowBalanceThreshold;
    if (threshold === null) continue;
    const account = await d.store.getAccount(s.accountId);
    if (!account || account.status !== 'active') continue;
    if (account.balance < threshold && s.lowBalanceArmed) {
      await d.record(lowBalanceNotice(d.rules, account.id, s.lowBalanceSeq, account.balance, threshold));
      await d.store.armLowBalance(account.id, s.lowBalanceSeq, false);
    } else if (account.balance >= threshold && !s.lowBalanceArmed) {
      await d.store.armLowBalance(account.id, s.lowBalanceSeq, true);
    }
  }
}

/** One sweep. */
export async function sweepOnce(d: SweepDeps): Promise<void> {
  await lowBalance(d);
  const now = d.clock.now();
  for (const e of await d.store.unlimitedEnding(now, now + WEEK_MS)) {
    await d.record(endingNotice(e.accountId, e.keyId, e.until));
  }
  await d.store.pruneNotifications(now - KEEP_MS);
}

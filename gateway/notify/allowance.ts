/**
 * Allowance alerts from the request path: the admission's `quota` (used and limit after the request) crosses 80 %
 * or 100 %. Below 80 % it costs one multiplication; past it, one lookup in a per-day memo, so a notice already
 * recorded (by this process, or found recorded by the store) costs no store round trip. The memo is bounded.
 */
import { utcDay } from '../core/clock';
import type { Identity } from '../policy/identity';
import type { RuleSet } from '../policy/ruleset';
import { allowanceNotice, type Notice } from './events';

/** What the request path calls after an admission (admitted or refused) of a known account. */
export interface AllowanceObserver {
  observe(
    identity: Exclude<Identity, { kind: 'anonymous' }>,
    quota: { used: number; limit: number },
    now: number,
  ): void;
}

/** Names remembered per day before the memo is cleared (a second record is harmless: the store inserts once). */
const MEMO_MAX = 50_000;

/** Watches admissions for allowance crossings and records each once per subject and UTC day. */
export class AllowanceWatch implements AllowanceObserver {
  private day = '';
  private readonly memo = new Set<string>();
  private readonly perKey: boolean;

  constructor(
    rules: RuleSet,
    private readonly record: (n: Notice) => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {
    // A: the allowance is the key's (D5); B: the account's, shared by its keys and whitelist (spec 5.4).
    this.perKey = rules.keyedAllowance === 'key-and-network';
  }

  observe(
    identity: Exclude<Identity, { kind: 'anonymous' }>,
    quota: { used: number; limit: number },
    now: number,
  ): void {
    if (quota.used * 5 < quota.limit * 4 || quota.limit <= 0) return;
    const keyId = this.perKey && identity.kind === 'key' ? identity.key.id : null;
    const subject = keyId ?? identity.account.id;
    const day = utcDay(now);
    if (day !== this.day || this.memo.size >= MEMO_MAX) {
      this.day = day;
      this.memo.clear();
    }
    const percents: (80 | 100)[] = quota.used >= quota.limit ? [80, 100] : [80];
    for (const percent of percents) {
      const name = `${percent}:${subject}`;
      if (this.memo.has(name)) continue;
      this.memo.add(name);
      // Off the request path: the answer never waits for the store.
      this.record(allowanceNotice(identity.account.id, keyId, percent, quota, day)).catch((err: unknown) => {
        this.memo.delete(name); // try again on a later request
        this.onError(err);
      });
    }
  }
}

/** Values both account front ends show the same way: times, money, a key's kind now. */
import { formatMoney, type RuleSet } from '../policy/ruleset';
import { HOUR_MS } from '../store/charge-hour';
import type { ApiKey, KeyKind, LedgerEntry } from '../store/types';

/** ISO 8601 of epoch ms, or null. */
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A balance or amount as the APIs show it: A "12.3456" (EUR), B 123 (credits). */
export function money(rules: RuleSet, units: number): string | number {
  return rules.moneyDecimals === 0 ? units : formatMoney(rules, units);
}

/** The kind a key has now: an Unlimited package key becomes pay-per-use when its package ends (D17). */
export function kindAt(key: ApiKey, now: number): KeyKind {
  return key.kind === 'unlimited' && (key.packageUntil === null || key.packageUntil > now)
    ? 'unlimited'
    : 'payg';
}

/** A ledger row's request count and UTC hour (D35; ISO 8601), null where it has none. */
export function chargeHours(entry: LedgerEntry) {
  return {
    count: entry.count,
    hourStart: iso(entry.hourStart),
    hourEnd: iso(entry.hourStart === null ? null : entry.hourStart + HOUR_MS),
  };
}

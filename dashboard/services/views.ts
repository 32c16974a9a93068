/** JSON shapes of the account's records (never a key hash or another account's data). */
import { chargeHours, iso, kindAt, money } from '../../gateway/accounts/values';
import type { RuleSet } from '../../gateway/policy/ruleset';
import type { ApiKey, LedgerEntry, SlotView, WhitelistEntry } from '../../gateway/store/types';

export { iso, money };

/** A key as the customer sees it. */
export function keyView(key: ApiKey, now: number) {
  return {
    id: key.id,
    prefix: key.prefix,
    label: key.label,
    kind: kindAt(key, now),
    status: key.status,
    packageUntil: iso(key.packageUntil),
    createdAt: iso(key.createdAt) as string,
    revokedAt: iso(key.revokedAt),
    // D40: a test key is marked wherever it is shown; D39: rotation and the owner's end date.
    mode: key.test === true ? ('test' as const) : ('live' as const),
    rotatedAt: iso(key.rotatedAt ?? null),
    previousSecretUntil: iso(key.previousUntil ?? null),
    expiresAt: iso(key.expiresAt ?? null),
  };
}
export type KeyJson = ReturnType<typeof keyView>;

/** One occupied IP slot and when it frees. */
export function slotView(s: SlotView) {
  return {
    address: s.member,
    firstSeen: iso(s.firstSeen),
    lastSeen: iso(s.lastSeen),
    freesAt: iso(s.freesAt) as string,
  };
}
export type SlotJson = ReturnType<typeof slotView>;

/** A whitelist entry. */
export function whitelistView(e: WhitelistEntry) {
  return { id: e.id, address: e.cidr, createdAt: iso(e.createdAt) as string };
}
export type WhitelistJson = ReturnType<typeof whitelistView>;

/** A ledger row; a charge row also its request count and UTC hour (D35; null where it has none). */
export function ledgerView(rules: RuleSet, e: LedgerEntry) {
  return {
    id: e.id,
    kind: e.kind,
    amount: money(rules, e.amount),
    keyId: e.keyId,
    createdAt: iso(e.createdAt) as string,
    ...chargeHours(e),
  };
}
export type LedgerJson = ReturnType<typeof ledgerView>;

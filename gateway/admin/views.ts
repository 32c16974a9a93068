/** JSON views of store records for admin responses. Times are ISO 8601; money uses the rule set's unit. Never a key hash. */
import { MAX_CIDRS, MAX_REFERRERS } from '../policy/restrictions';
import { chargeHours, iso, kindAt, money } from '../accounts/values';
import type { RuleSet } from '../policy/ruleset';
import type { Account, ApiKey, LedgerEntry, SlotView, WhitelistEntry } from '../store/types';
import type { Receipt } from '../store/receipts';

export { iso, kindAt, money };

/** A key's restrictions (D29): empty lists when it has none; the limits the input is checked against. */
export function restrictionsView(key: ApiKey) {
  const r = key.restrictions;
  return {
    keyId: key.id,
    referrers: r?.referrers ?? [],
    cidrs: r?.cidrs ?? [],
    limits: { referrers: MAX_REFERRERS, cidrs: MAX_CIDRS },
  };
}

/** A key without its secret parts. */
export function keyView(key: ApiKey, now: number) {
  return {
    id: key.id,
    accountId: key.accountId,
    prefix: key.prefix,
    label: key.label,
    kind: kindAt(key, now),
    status: key.status,
    packageUntil: iso(key.packageUntil),
    createdAt: iso(key.createdAt),
    revokedAt: iso(key.revokedAt),
    // D40: a test key is marked in every listing; D39: rotation and the owner's end date.
    mode: key.test === true ? ('test' as const) : ('live' as const),
    rotatedAt: iso(key.rotatedAt ?? null),
    previousSecretUntil: iso(key.previousUntil ?? null),
    expiresAt: iso(key.expiresAt ?? null),
  };
}

/** A key's own burst limits: null windows follow the deployment's key limits (config `burst.key`). */
export function burstView(key: ApiKey) {
  return { perSecond: key.burst?.perSecond ?? null, perMinute: key.burst?.perMinute ?? null };
}

/** A whitelist entry. */
export function whitelistView(entry: WhitelistEntry) {
  return { id: entry.id, address: entry.cidr, createdAt: iso(entry.createdAt) };
}

/** An IP slot or account address: the address unit, when first and last seen, when it frees. */
export function slotView(slot: SlotView) {
  return {
    address: slot.member,
    firstSeen: iso(slot.firstSeen),
    lastSeen: iso(slot.lastSeen),
    freesAt: iso(slot.freesAt),
  };
}

/**
 * A ledger row. A charge row (D35) also says how many requests it stands for and its UTC hour; a per-request charge
 * recorded before D35 has count 1 and no hour; other rows have neither.
 */
export function ledgerView(rules: RuleSet, entry: LedgerEntry) {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: money(rules, entry.amount),
    keyId: entry.keyId,
    ref: entry.ref,
    createdAt: iso(entry.createdAt),
    ...chargeHours(entry),
  };
}

/** A credit note (a refund or lost dispute of a top-up): what it refunded, took from the balance, left owed. */
export function creditNoteView(rules: RuleSet, r: Receipt) {
  return {
    number: r.number,
    creditOf: r.creditOf,
    method: r.method,
    refunded: money(rules, r.amount),
    removed: money(rules, r.amount - r.owed),
    owed: money(rules, r.owed),
    paid: r.paid,
    issuedAt: iso(r.issuedAt),
  };
}

/** The account's plan: A pay-per-use plus its Unlimited packages; B the Unlimited plan or credits (D17). */
export function planView(rules: RuleSet, account: Account, keys: ApiKey[], now: number) {
  if (rules.unlimited === 'package-key') {
    const packages = keys
      .filter((k) => k.kind === 'unlimited' && k.packageUntil !== null)
      .map((k) => ({
        keyId: k.id,
        prefix: k.prefix,
        until: iso(k.packageUntil),
        active: k.status === 'active' && (k.packageUntil ?? 0) > now,
      }));
    return { plan: 'payg' as const, packages };
  }
  if (account.unlimitedUntil !== null && account.unlimitedUntil > now) {
    return { plan: 'unlimited' as const, until: iso(account.unlimitedUntil) };
  }
  return { plan: 'credits' as const };
}

/** The account summary (no keys, no password hash). */
export function accountSummary(rules: RuleSet, account: Account) {
  return {
    id: account.id,
    email: account.email,
    name: account.name,
    status: account.status,
    balance: money(rules, account.balance),
    createdAt: iso(account.createdAt),
    /** When the e-mail address was proven; null while a rule set A sign-up is unverified (issue 15 item 1). */
    emailVerifiedAt: iso(account.emailVerifiedAt),
    /** When the owner deleted the account (status 'deleted'), else null. */
    deletedAt: iso(account.deletedAt),
  };
}

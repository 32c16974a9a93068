/**
 * The accounts service: every account rule the admin API and the dashboard share (issue 9). Keys (creation with
 * their one-time secret, detail with IP slots and when each frees, revocation), Unlimited packages (A) and the plan
 * (B), top-ups, the whitelist (B). The HTTP layers validate the shape of their input, call these, and render.
 */
import { normaliseRestrictions, RestrictionError, type KeyRestrictions } from '../policy/restrictions';
import type pino from 'pino';
import { generateKey, googleKey, hashKey, keyPrefix } from '../core/keys';
import type { Clock } from '../core/clock';
import { keySlotCapacity } from '../policy/planner';
import type { RuleSet } from '../policy/ruleset';
import {
  StoreConflict,
  type Account,
  type ApiKey,
  type KeyBurst,
  type LedgerEntry,
  type NewKey,
  type SlotView,
  type WhitelistEntry,
} from '../store/types';
import { MAX_BURST } from '../store/checks';
import type { AccountStore, BillingStore, KeyStore } from '../store/ports';
import type { PlanPurchase } from '../store/plan-periods';
import type { InvoicePolicy } from '../store/invoices';
import type { Receipt, ReceiptInput } from '../store/receipts';
import type { RefundInput, RefundResult } from '../store/refunds';
import { normaliseWhitelistAddress } from './address';
import { audit, type Actor, type AuditAction, type AuditObject } from './audit';
import { AccountError, InputError, type Feature } from './errors';
import { addCalendarMonth } from './month';
import { iso } from './values';

/** What the service needs. */
export interface AccountsDeps {
  store: AccountStore & KeyStore & BillingStore;
  rules: RuleSet;
  clock: Clock;
  /** Server-side secret of key hashes (D14). */
  pepper: string;
  /** Where audit lines go (issue 14 item 2); an action with an actor and no logger is not audited. */
  logger?: pino.Logger;
  /** Told of every revocation, whoever made it (notifications, D30); returns at once. */
  onKeyRevoked?: (key: ApiKey) => void;
}

/** A key with its IP slot capacity now and the slots it holds (spec 5.5). */
export interface KeyDetail {
  key: ApiKey;
  slotCapacity: number;
  slots: SlotView[];
}

/** A key just created: the record and its secret, shown once and never again (D14). */
export interface CreatedKey {
  key: ApiKey;
  secret: string;
  /** The same key in Google's shape (D28: `AIza` + the same secret), shown once with it. */
  googleKey: string;
}

/** The longest overlap of a rotation (D39): 7 days. */
export const MAX_OVERLAP_MS = 7 * 86_400_000;

const FEATURE_OF: Record<Feature, (rules: RuleSet) => boolean> = {
  packages: (r) => r.unlimited === 'package-key',
  plan: (r) => r.unlimited === 'account-plan',
  whitelist: (r) => r.whitelist,
};

/** The shared account rules over one store. */
export class AccountsService {
  /** The operator's invoicing (the dashboard sets it from its config): receipts issued meanwhile are invoices. */
  invoicing: InvoicePolicy | null = null;

  constructor(private readonly d: AccountsDeps) {}

  /** Write the audit line of an action `actor` took (nothing without an actor or a logger). */
  audit(actor: Actor | undefined, action: AuditAction, what: AuditObject): void {
    if (actor !== undefined && this.d.logger !== undefined) audit(this.d.logger, actor, action, what);
  }

  /** The rule set in force. */
  get rules(): RuleSet {
    return this.d.rules;
  }

  /** Refuse unless the rule set has `feature`. */
  require(feature: Feature): void {
    if (!FEATURE_OF[feature](this.d.rules)) throw new AccountError({ code: 'not_in_rule_set', feature });
  }

  /** The account, or not found. */
  async account(id: string): Promise<Account> {
    const account = await this.d.store.getAccount(id);
    if (!account) throw new AccountError({ code: 'not_found', missing: 'account' });
    return account;
  }

  /** The key, or not found; with `ownerId`, another account's key is not found either (never "forbidden"). */
  async key(id: string, ownerId?: string): Promise<ApiKey> {
    const key = await this.d.store.getKey(id);
    if (!key || (ownerId !== undefined && key.accountId !== ownerId)) {
      throw new AccountError({ code: 'not_found', missing: 'key' });
    }
    return key;
  }

  /** The account's keys, newest first. */
  async keys(accountId: string): Promise<ApiKey[]> {
    const keys = await this.d.store.listKeys(accountId);
    return keys.sort((a, b) => b.createdAt - a.createdAt);
  }

  /** A key with its slot capacity now and the slots it holds, each with when it frees. */
  async keyDetail(key: ApiKey): Promise<KeyDetail> {
    const now = this.d.clock.now();
    const { limits, slotMode } = this.d.rules;
    const slots = await this.d.store.listSlots(`key:${key.id}`, slotMode, limits.slotWindowMs, now);
    return { key, slotCapacity: keySlotCapacity(this.d.rules, key, now), slots };
  }

  /** The addresses counted against the account's Unlimited address limit (B). */
  async accountAddresses(accountId: string): Promise<SlotView[]> {
    const { limits, slotMode } = this.d.rules;
    const scope = `account:${accountId}`;
    return this.d.store.listSlots(scope, slotMode, limits.slotWindowMs, this.d.clock.now());
  }

  /** A fresh key (a test key with `test`, D40) and what the store keeps of it (the HMAC and the display prefix). */
  private newKey(fields: Omit<NewKey, 'hash' | 'prefix'>): { secret: string; input: NewKey } {
    const secret = generateKey({ test: fields.test === true });
    return { secret, input: { ...fields, hash: hashKey(secret, this.d.pepper), prefix: keyPrefix(secret) } };
  }

  /**
   * Create a pay-per-use key; `opts.test`: a test key (D40), `opts.expiresAt`: an end date (InputError when not in
   * the future). A rule set that labels every key numbers an unlabelled one ("Key 3", "Test key 3").
   */
  async createKey(
    accountId: string,
    label: string | null,
    actor?: Actor,
    opts: { test?: boolean; expiresAt?: number | null } = {},
  ): Promise<CreatedKey> {
    const { store, rules, clock } = this.d;
    const test = opts.test === true;
    const expiresAt = this.checkExpiry(opts.expiresAt ?? null);
    const numbered = async () =>
      `${test ? 'Test key' : 'Key'} ${(await store.listKeys(accountId)).length + 1}`;
    const named = label ?? (rules.keyLabelRequired ? await numbered() : null);
    const fields = { accountId, label: named, kind: 'payg' as const, packageUntil: null, test, expiresAt };
    const { secret, input } = this.newKey(fields);
    const key = await store.createKey(input, clock.now());
    this.audit(actor, 'key.created', {
      account: accountId,
      object: key.id,
      ...(test ? { detail: { mode: 'test' } } : {}),
    });
    return { key, secret, googleKey: googleKey(secret) };
  }

  /**
   * Give a key a new secret, shown once (D39); the old one keeps working `overlapMs` more (0 to 7 days: InputError
   * on `overlap` otherwise). A test key stays a test key.
   */
  async rotateKey(key: ApiKey, overlapMs: number, actor?: Actor): Promise<CreatedKey> {
    if (!Number.isSafeInteger(overlapMs) || overlapMs < 0 || overlapMs > MAX_OVERLAP_MS) {
      throw new InputError('overlap', 'must be between 0 and 7 days');
    }
    const now = this.d.clock.now();
    const { secret, input } = this.newKey({
      accountId: key.accountId,
      kind: key.kind,
      test: key.test === true,
    });
    const secretOf = { hash: input.hash, prefix: input.prefix };
    const rotated = await this.d.store.rotateKey(
      key.id,
      secretOf,
      overlapMs > 0 ? now + overlapMs : null,
      now,
    );
    const detail = { overlapSeconds: Math.floor(overlapMs / 1000) };
    this.audit(actor, 'key.rotated', { account: key.accountId, object: key.id, detail });
    return { key: rotated, secret, googleKey: googleKey(secret) };
  }

  /** Set (null: clear) the end date of a key (InputError on `expiresAt` when not in the future). */
  async setKeyExpiry(key: ApiKey, expiresAt: number | null, actor?: Actor): Promise<ApiKey> {
    const changed = await this.d.store.setKeyExpiry(key.id, this.checkExpiry(expiresAt));
    this.audit(actor, 'key.expiry_set', {
      account: key.accountId,
      object: key.id,
      detail: { expiresAt: iso(expiresAt) },
    });
    return changed;
  }

  /**
   * Set (null: clear) a key's own burst limits: each window a whole number from 1 (InputError naming the window
   * otherwise); an absent window keeps the deployment's key limit for it.
   */
  async setKeyBurst(key: ApiKey, burst: KeyBurst | null, actor?: Actor): Promise<ApiKey> {
    for (const field of ['perSecond', 'perMinute'] as const) {
      const value = burst?.[field];
      if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1 && value <= MAX_BURST)) {
        throw new InputError(
          field,
          `must be a whole number of requests from 1 to ${MAX_BURST} (or null: the deployment's limit)`,
        );
      }
    }
    const given =
      burst === null || (burst.perSecond === undefined && burst.perMinute === undefined) ? null : burst;
    const changed = await this.d.store.setKeyBurst(key.id, given);
    this.audit(actor, 'key.burst_set', {
      account: key.accountId,
      object: key.id,
      detail: { perSecond: given?.perSecond ?? null, perMinute: given?.perMinute ?? null },
    });
    return changed;
  }

  private checkExpiry(expiresAt: number | null): number | null {
    if (expiresAt !== null && !(Number.isSafeInteger(expiresAt) && expiresAt > this.d.clock.now())) {
      throw new InputError('expiresAt', 'must be a time in the future');
    }
    return expiresAt;
  }

  /** Revoke a key (already revoked: the store's StoreConflict 'already_revoked'). */
  async revokeKey(key: ApiKey, actor?: Actor): Promise<ApiKey> {
    const revoked = await this.d.store.revokeKey(key.id, this.d.clock.now());
    this.audit(actor, 'key.revoked', { account: key.accountId, object: key.id });
    this.d.onKeyRevoked?.(revoked);
    return revoked;
  }

  /**
   * Rename a key, active or revoked (issue 15 item 4). `null` removes the label, refused where the rule set labels
   * every key (InputError on `label`). The audit line carries the new label (a customer's note, not a secret).
   */
  async renameKey(key: ApiKey, label: string | null, actor?: Actor): Promise<ApiKey> {
    if (label === null && this.d.rules.keyLabelRequired) throw new InputError('label', 'is required');
    const renamed = await this.d.store.setKeyLabel(key.id, label);
    this.audit(actor, 'key.renamed', { account: key.accountId, object: key.id, detail: { label } });
    return renamed;
  }

  /**
   * Set a key's restrictions (issue 15 item 4, D29) from input `{ referrers?, cidrs? }` (validated here: InputError
   * naming the field, e.g. `referrers[2]`); empty lists clear them. Audited as key.restricted with the counts only.
   */
  async restrictKey(key: ApiKey, input: unknown, actor?: Actor): Promise<ApiKey> {
    let canonical: KeyRestrictions;
    try {
      canonical = normaliseRestrictions(input);
    } catch (err) {
      throw err instanceof RestrictionError ? new InputError(err.field, err.detail) : err;
    }
    const changed = await this.d.store.setKeyRestrictions(key.id, canonical);
    const detail = { referrers: canonical.referrers.length, cidrs: canonical.cidrs.length };
    this.audit(actor, 'key.restricted', { account: key.accountId, object: key.id, detail });
    return changed;
  }

  /** A: buy an Unlimited package from the balance (D17): its own key, valid one calendar month, atomically. */
  async buyPackage(
    account: Pick<Account, 'id' | 'balance'>,
    label: string | null,
    actor?: Actor,
  ): Promise<CreatedKey & { price: number; balance: number }> {
    this.require('packages');
    const now = this.d.clock.now();
    const until = addCalendarMonth(now);
    const named = label ?? `Unlimited until ${iso(until)?.slice(0, 10)}`;
    const { secret, input } = this.newKey({
      accountId: account.id,
      label: named,
      kind: 'unlimited',
      packageUntil: until,
    });
    const price = this.d.rules.limits.packagePrice;
    try {
      // Every package bought has its receipt (D31), paid from the balance.
      const receipt: ReceiptInput = {
        method: 'balance',
        currency: receiptCurrency(this.d.rules),
        invoicing: this.invoicing,
      };
      const bought = await this.d.store.buyPackageWithReceipt(account.id, price, input, now, receipt);
      const detail = { price, until: iso(until) ?? null, receipt: bought.receipt.number };
      this.audit(actor, 'package.bought', { account: account.id, object: bought.key.id, detail });
      return { key: bought.key, secret, googleKey: googleKey(secret), price, balance: bought.balance };
    } catch (err) {
      if (!(err instanceof StoreConflict && err.reason === 'insufficient_balance')) throw err;
      throw new AccountError({ code: 'insufficient_balance', price, balance: account.balance });
    }
  }

  /**
   * Add `units` to the balance, exactly once per idempotency key (D16). A paid top-up names how it was paid and gets
   * its receipt (D31) with the credit; an operator's credit (no `payment`) is an adjustment without one.
   */
  async topUp(
    accountId: string,
    units: number,
    idempotencyKey: string | null,
    actor?: Actor,
    payment?: Omit<ReceiptInput, 'currency'>,
  ): Promise<{ entry: LedgerEntry; balance: number; replayed: boolean; receipt?: Receipt }> {
    const now = this.d.clock.now();
    const result: { entry: LedgerEntry; balance: number; replayed: boolean; receipt?: Receipt } = payment
      ? await this.d.store.creditWithReceipt(accountId, units, idempotencyKey, now, {
          ...payment,
          currency: receiptCurrency(this.d.rules),
          invoicing: this.invoicing,
        })
      : await this.d.store.credit(accountId, units, idempotencyKey, now);
    // A replay changed nothing: it is not a second action.
    if (!result.replayed) {
      const detail = { units, balance: result.balance, receipt: result.receipt?.number ?? null };
      this.audit(actor, 'account.topped_up', { account: accountId, object: result.entry.id, detail });
    }
    return result;
  }

  /**
   * A payment provider's refund or lost dispute of a paid top-up (Store.refundTopUp): the part of the claim's total
   * not applied yet leaves the balance, never below zero (the rest is owed), once per event.
   */
  refundTopUp(input: RefundInput): Promise<RefundResult> {
    return this.d.store.refundTopUp(input, this.d.clock.now());
  }

  /** B: set the Unlimited plan's end (epoch ms) or return to credits (null). */
  async setPlan(accountId: string, until: number | null, actor?: Actor): Promise<Account> {
    this.require('plan');
    const account = await this.d.store.setUnlimitedUntil(accountId, until);
    this.audit(actor, 'plan.set', { account: accountId, detail: { until: iso(until) ?? null } });
    return account;
  }

  /**
   * B: a payment (`ref`: the provider's checkout or invoice) buys `days` of the Unlimited plan, added to the plan's
   * end when it still runs, else from now, with its receipt, exactly once per `ref` (Store.buyPlanPeriod).
   */
  async buyPlan(
    accountId: string,
    ref: string,
    days: number,
    payment: Omit<ReceiptInput, 'currency'>,
    actor?: Actor,
  ): Promise<PlanPurchase> {
    this.require('plan');
    const receipt = { ...payment, currency: receiptCurrency(this.d.rules), invoicing: this.invoicing };
    const r = await this.d.store.buyPlanPeriod(accountId, { ref, days, receipt }, this.d.clock.now());
    if (!r.replayed) {
      const detail = { days, until: iso(r.period.endsAt) ?? null, receipt: r.receipt.number };
      this.audit(actor, 'plan.bought', { account: accountId, object: r.period.id, detail });
    }
    return r;
  }

  /** B: the account's whitelist. */
  async whitelist(accountId: string): Promise<WhitelistEntry[]> {
    this.require('whitelist');
    return this.d.store.listWhitelist(accountId);
  }

  /** B: a whitelist address or IPv6 block normalised to CIDR (D18); an InputError names `address`. */
  whitelistCidr(address: string): string {
    this.require('whitelist');
    return normaliseWhitelistAddress(address, this.d.rules.limits.whitelistMinIpv6Prefix);
  }

  /** B: add an address or IPv6 block (normalised here too); another account's overlap is the store's conflict. */
  async addWhitelist(accountId: string, address: string, actor?: Actor): Promise<WhitelistEntry> {
    const cidr = this.whitelistCidr(address);
    const entry = await this.d.store.addWhitelist(accountId, cidr, this.d.clock.now());
    this.audit(actor, 'whitelist.added', { account: accountId, object: entry.id, detail: { cidr } });
    return entry;
  }

  /** B: remove one of the account's entries; another account's entry is not found. */
  async removeWhitelist(accountId: string, entryId: string, actor?: Actor): Promise<void> {
    this.require('whitelist');
    const entries = await this.d.store.listWhitelist(accountId);
    if (!entries.some((e) => e.id === entryId)) {
      throw new AccountError({ code: 'not_found', missing: 'whitelist_entry' });
    }
    await this.d.store.removeWhitelist(accountId, entryId);
    this.audit(actor, 'whitelist.removed', { account: accountId, object: entryId });
  }
}

/** The currency of the rule set's money on a receipt: "EUR" (A, units of 0.0001 EUR) or "credits" (B). */
export function receiptCurrency(rules: RuleSet): string {
  return rules.moneyDecimals === 0 ? 'credits' : 'EUR';
}

/** The billing port: credit, Unlimited packages, the ledger, receipts, billing details and refunds (D16, D17, D31). */
import type { PlanPeriod, PlanPeriodInput, PlanPurchase } from '../plan-periods';
import type { BillingDetails, Receipt, ReceiptInput } from '../receipts';
import type { RefundInput, RefundResult } from '../refunds';
import type { ApiKey, LedgerEntry, NewKey } from '../types';

/** Money of an account. Operations on an unknown account id → StoreConflict('not_found'). */
export interface BillingStore {
  /**
   * Add `amount` units to the balance and the ledger, exactly once per (account, idempotencyKey).
   * A repeat with the same key and amount returns the first entry (`replayed: true`, balance unchanged); a different
   * amount → StoreConflict('idempotency_mismatch'). `amount` must be a positive safe integer ('invalid_input').
   */
  credit(
    accountId: string,
    amount: number,
    idempotencyKey: string | null,
    now: number,
  ): Promise<{ entry: LedgerEntry; balance: number; replayed: boolean }>;
  /**
   * A: debit `price` from the balance and create an Unlimited key valid until `packageUntil`, atomically.
   * Insufficient balance → StoreConflict('insufficient_balance'), nothing changed.
   */
  buyPackage(
    accountId: string,
    price: number,
    key: NewKey,
    now: number,
  ): Promise<{ key: ApiKey; balance: number }>;
  /**
   * The newest `limit` entries, newest first; with `before` (an entry id of this account), the `limit` entries just
   * older than it: a keyset page, so a long ledger is read in bounded steps (an unknown `before` → empty page).
   */
  ledger(accountId: string, limit: number, before?: string): Promise<LedgerEntry[]>;

  /*
   * --- receipts (D31; gateway/store/receipts.ts) ---
   * A receipt is issued in the transaction that records its top-up or purchase, numbered from a gapless series per
   * UTC year (no number is burnt by a failed or replayed operation) with the account's billing details as they are.
   */
  /** The account's billing details (all null when never given); unknown account → not_found. */
  getBilling(accountId: string): Promise<BillingDetails>;
  /** Replace the billing details (trimmed, empty → null, bounded: invalid_input); unknown account → not_found. */
  setBilling(accountId: string, billing: BillingDetails, now: number): Promise<BillingDetails>;
  /**
   * `credit` and its receipt. A replay (same idempotency key and amount) returns the first credit's receipt and
   * allocates no number; a credit made earlier without a receipt gets one on its first replay here.
   */
  creditWithReceipt(
    accountId: string,
    amount: number,
    idempotencyKey: string | null,
    now: number,
    receipt: ReceiptInput,
  ): Promise<{ entry: LedgerEntry; balance: number; replayed: boolean; receipt: Receipt }>;
  /** `buyPackage` and its receipt (method 'balance' as a rule), issued together. */
  buyPackageWithReceipt(
    accountId: string,
    price: number,
    key: NewKey,
    now: number,
    receipt: ReceiptInput,
  ): Promise<{ key: ApiKey; balance: number; receipt: Receipt }>;
  /**
   * The account's newest `limit` receipts (1..1000), newest first; with `before` (a receipt number of this account),
   * the next older page after that receipt. Unknown account, or a `before` that is not this account's → not_found.
   */
  listReceipts(accountId: string, limit: number, before?: string): Promise<Receipt[]>;
  /** The account's receipt with this number, or null (none, or another account's). */
  getReceipt(accountId: string, number: string): Promise<Receipt | null>;
  /**
   * Apply a refund or lost dispute of the top-up paid by `input.paymentRef` (gateway/store/refunds.ts): the part of
   * the claim's running total not applied yet is taken from the balance (never below zero; the rest is recorded as
   * owed on the receipts), with one ledger row (kind 'adjustment') and one credit note, atomically and exactly once
   * per event id, also under concurrent or repeated deliveries. Nothing names the payment → 'unknown_payment'.
   */
  refundTopUp(input: RefundInput, now: number): Promise<RefundResult>;

  /**
   * B: a payment buys `input.days` of the Unlimited plan (gateway/store/plan-periods.ts): the period starts at the
   * plan's current end when it is still running, else now; `unlimited_until` becomes its end; a receipt of kind
   * 'plan' is issued; all in one transaction, exactly once per `input.ref` (a repeat answers the first period,
   * `replayed: true`, changing nothing, also under concurrent deliveries). Every instance's admission sees the new
   * end through the store's usual invalidation. Deleted account → account_deleted; a ref of another account →
   * idempotency_mismatch.
   */
  buyPlanPeriod(accountId: string, input: PlanPeriodInput, now: number): Promise<PlanPurchase>;
  /** The account's newest `limit` bought periods (by purchase, then start, descending); unknown → not_found. */
  planPeriods(accountId: string, limit: number): Promise<PlanPeriod[]>;
}

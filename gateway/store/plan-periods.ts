/**
 * Paid periods of rule set B's Unlimited plan (D17, D32; migration 013): the records and checks both stores share.
 * A period is bought by one payment (its `ref`), starts where the plan ends now (or now, when it has ended) and adds
 * `days` whole days to the account's `unlimited_until`, with its receipt, in one transaction, once per `ref`.
 */
import { randomBytes } from 'node:crypto';
import type { Receipt, ReceiptInput, ReceiptMethod } from './receipts';
import { requireReceiptInput } from './receipts';
import { StoreConflict, type Account } from './types';

/** One day in epoch milliseconds. */
export const DAY_MS = 86_400_000;
/** The longest period one payment may buy (10 years). */
export const MAX_PLAN_DAYS = 3660;

/** What a payment buys. */
export interface PlanPeriodInput {
  /** The payment, unique across all periods: 'stripe:cs_…', 'btcpay:<invoice id>', 'test:<form id>'. */
  ref: string;
  /** Whole days added to the plan (1..MAX_PLAN_DAYS). */
  days: number;
  /** How it was paid (receipt of kind 'plan'; its amount is 0 units of the account's money: no credit moves). */
  receipt: ReceiptInput;
}

/** A bought period. */
export interface PlanPeriod {
  id: string;
  accountId: string;
  ref: string;
  startsAt: number;
  endsAt: number;
  days: number;
  method: ReceiptMethod;
  paid: { minor: number; currency: string } | null;
  paymentRef: string | null;
  receiptNumber: string;
  createdAt: number;
}

/** The answer of a purchase: the period (the first one on a replay), the account after it, its receipt. */
export interface PlanPurchase {
  period: PlanPeriod;
  account: Account;
  receipt: Receipt;
  /** True when `ref` had bought its period before: nothing changed. */
  replayed: boolean;
}

/** A new period id ("plp_" and 80 random bits). */
export function newPlanPeriodId(): string {
  return `plp_${randomBytes(10).toString('hex')}`;
}

/** Throw invalid_input unless the input is one the stores accept. */
export function requirePlanInput(input: PlanPeriodInput): void {
  if (typeof input.ref !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(input.ref)) {
    throw new StoreConflict('invalid_input', 'ref must be 1..200 printable characters');
  }
  if (!Number.isSafeInteger(input.days) || input.days < 1 || input.days > MAX_PLAN_DAYS) {
    throw new StoreConflict('invalid_input', `days must be a whole number 1..${MAX_PLAN_DAYS}`);
  }
  requireReceiptInput(input.receipt);
}

/** Where a period bought at `now` starts: the plan's current end when it is still running, else now. */
export function periodStart(unlimitedUntil: number | null, now: number): number {
  return unlimitedUntil !== null && unlimitedUntil > now ? unlimitedUntil : now;
}

/** The plan_periods row of a new period. */
export function planPeriodRow(
  id: string,
  accountId: string,
  input: PlanPeriodInput,
  startsAt: number,
  receiptNumber: string,
  now: number,
): Record<string, string | number | null> {
  return {
    id,
    account_id: accountId,
    ref: input.ref,
    starts_at: startsAt,
    ends_at: startsAt + input.days * DAY_MS,
    days: input.days,
    method: input.receipt.method,
    paid_minor: input.receipt.paid?.minor ?? null,
    paid_currency: input.receipt.paid?.currency ?? null,
    payment_ref: input.receipt.paymentRef ?? null,
    receipt_number: receiptNumber,
    created_at: now,
  };
}

/** Map a plan_periods row. */
export function toPlanPeriod(row: object): PlanPeriod {
  const r = row as Record<string, unknown>;
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    ref: String(r.ref),
    startsAt: Number(r.starts_at),
    endsAt: Number(r.ends_at),
    days: Number(r.days),
    method: r.method as ReceiptMethod,
    paid:
      r.paid_minor === null || r.paid_minor === undefined
        ? null
        : { minor: Number(r.paid_minor), currency: String(r.paid_currency) },
    paymentRef: r.payment_ref === null || r.payment_ref === undefined ? null : String(r.payment_ref),
    receiptNumber: String(r.receipt_number),
    createdAt: Number(r.created_at),
  };
}

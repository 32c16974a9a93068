/**
 * Refunds of paid top-ups (D16, D31): what both stores share. A provider reports a refund (or a lost dispute) of a
 * payment as a running total per claim ('refund:ch_…' grows with each partial refund; 'dispute:dp_…' is the disputed
 * amount). The store applies the part of that total not applied yet, so a repeat or an older event arriving late
 * changes nothing, and two events of one claim applied at once cannot both take it. What is applied is taken from the
 * balance as far as it goes (never below zero, D16); the rest is recorded as owed. Each application is one ledger
 * row (kind 'adjustment', ref `refund:<id>`, when anything was taken) and one credit note.
 */
import { StoreConflict } from './types';
import type { Receipt } from './receipts';

/** A refund (or lost dispute) reported by a payment provider. */
export interface RefundInput {
  /** The payment the top-up was paid by, as its receipt names it (`Receipt.paymentRef`). */
  paymentRef: string;
  /** What is refunded of it: one running total per claim ('refund:ch_…', 'dispute:dp_…'). */
  claim: string;
  /** The claim's running total, in units of the account's money (D16). */
  total: number;
  /** The provider's event id: a repeat of it changes nothing. */
  eventRef: string;
}

/** What a refund did. */
export interface RefundResult {
  /**
   * 'applied': money moved now; 'replayed': this event, or a total already applied, moved nothing more;
   * 'unknown_payment': no top-up receipt names the payment (nothing changed).
   */
  status: 'applied' | 'replayed' | 'unknown_payment';
  accountId: string | null;
  /** Units taken from the balance now, and units recorded as owed now (0 unless applied). */
  removed: number;
  owed: number;
  /** The credit note of this event (also on a replay of an applied event), or null. */
  creditNote: Receipt | null;
}

/** The ledger ref of a refund's adjustment row. */
export const refundLedgerRef = (refundId: string): string => `refund:${refundId}`;

const TEXT = /^[\x21-\x7e]{1,200}$/;

/** Throw invalid_input unless the input is one the stores accept. */
export function requireRefundInput(r: RefundInput): void {
  if (typeof r.paymentRef !== 'string' || !TEXT.test(r.paymentRef) || r.paymentRef.length > 100)
    throw new StoreConflict('invalid_input', 'paymentRef must be 1..100 printable characters');
  if (typeof r.claim !== 'string' || !TEXT.test(r.claim) || r.claim.length > 100)
    throw new StoreConflict('invalid_input', 'claim must be 1..100 printable characters');
  if (typeof r.eventRef !== 'string' || !TEXT.test(r.eventRef))
    throw new StoreConflict('invalid_input', 'eventRef must be 1..200 printable characters');
  if (!Number.isSafeInteger(r.total) || r.total < 0)
    throw new StoreConflict('invalid_input', 'total must be a whole number of units ≥ 0');
}

/**
 * The units this event refunds now: the claim's total less what the claim already took, and never more than what
 * is left of the top-up (the top-up's amount less every refund of it).
 */
export function refundDelta(
  total: number,
  claimed: number,
  topUp: { amount: number; refunded: number },
): number {
  return Math.max(0, Math.min(total - claimed, topUp.amount - topUp.refunded));
}

/**
 * The credit note's payment fields: the top-up's method and currency, and the share of the money paid that the
 * refunded units stand for (whole minor units, rounded down).
 */
export function creditNoteInput(
  topUp: Receipt,
  units: number,
): { method: Receipt['method']; currency: string; paid: Receipt['paid'] } {
  const paid =
    topUp.paid && topUp.amount > 0
      ? { minor: Math.floor((topUp.paid.minor * units) / topUp.amount), currency: topUp.paid.currency }
      : null;
  return { method: topUp.method, currency: topUp.currency, paid };
}

/** A nothing-changed answer. */
export function noRefund(status: 'replayed' | 'unknown_payment', accountId: string | null): RefundResult {
  return { status, accountId, removed: 0, owed: 0, creditNote: null };
}

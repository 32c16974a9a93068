/**
 * Receipts (issue 15 item 3, D31): the records, the number format and the row mapping both stores share. A receipt
 * is issued in the transaction that records the top-up or the package purchase, numbered from a gapless series per
 * UTC year ("2026-000123"), with the account's billing details copied as they were then.
 */
import {
  invoiceColumns,
  isCountry,
  requireInvoicePolicy,
  toInvoice,
  type Invoice,
  type InvoicePolicy,
} from './invoices';
import { StoreConflict } from './types';

/** How the customer paid: card (Stripe), crypto (BTCPay), test (demo provider), balance (a package). */
export type ReceiptMethod = 'card' | 'crypto' | 'test' | 'balance';
export const RECEIPT_METHODS: readonly ReceiptMethod[] = ['card', 'crypto', 'test', 'balance'];

/** The account's billing details (each null when not given). */
export interface BillingDetails {
  name: string | null;
  address: string | null;
  vatId: string | null;
  /** ISO 3166-1 alpha-2, upper case: decides the invoices' tax. Absent when none was given. */
  country?: string | null;
}

/** Bounds the stores enforce (the dashboard checks the same, with field errors, before). */
export const BILLING_LIMITS = { name: 200, address: 1000, vatId: 40, country: 2 } as const;

/** What a top-up or purchase tells the store about its receipt. */
export interface ReceiptInput {
  method: ReceiptMethod;
  /** The currency of `amount`: an ISO 4217 code ("EUR": units of the rule set) or "credits". */
  currency: string;
  /** Money paid for credits (B: card or crypto), in minor units of an ISO currency; null when none. */
  paid?: { minor: number; currency: string } | null;
  /** The provider's payment the top-up was paid by (Stripe: its PaymentIntent), which its refunds name. */
  paymentRef?: string | null;
  /** The operator's invoicing (seller, tax rates): when given, the receipt is also an invoice (invoices.ts). */
  invoicing?: InvoicePolicy | null;
}

/** A numbered receipt. */
export interface Receipt {
  /** "2026-000123": the UTC year of issue and the gapless sequence number within it. */
  number: string;
  accountId: string;
  /** A credit note documents a refund (or a lost dispute) of the top-up receipt it names (`creditOf`). */
  kind: 'topup' | 'package' | 'credit_note' | 'plan';
  method: ReceiptMethod;
  /** Integer units of the account's money (D16): credited (top-up) or paid from the balance (package). */
  amount: number;
  currency: string;
  paid: { minor: number; currency: string } | null;
  /** The billing details as they were when the receipt was issued. */
  billing: BillingDetails;
  issuedAt: number;
  /** The top-up's ledger entry id, the package's key id, or the credit note's refund id. */
  sourceId: string;
  /** The provider's payment of a top-up (refunds name it), else null. */
  paymentRef: string | null;
  /** Top-up: units refunded so far (its credit notes); credit note: the units it refunds. 0 otherwise. */
  refunded: number;
  /** Units a refund could not take from the balance (it was spent): owed by the account, shown to the operator. */
  owed: number;
  /** A credit note's top-up receipt number, else null. */
  creditOf: string | null;
  /** The invoice part (seller, tax, net/tax/gross), or null: issued without invoicing configured, or before it. */
  invoice?: Invoice | null;
}

/** The series (UTC year) of a receipt issued at `now`. */
export function seriesOf(now: number): string {
  return String(new Date(now).getUTCFullYear());
}

/** "2026-000123". Six digits, more when a year passes a million receipts. */
export function receiptNumber(series: string, seq: number): string {
  return `${series}-${String(seq).padStart(6, '0')}`;
}

/** Whether `s` has the shape of a receipt number (before a lookup: anything else is simply not found). */
export function isReceiptNumber(s: string): boolean {
  return /^\d{4}-\d{6,12}$/.test(s);
}

/** Throw invalid_input unless the input is one the stores accept. */
export function requireReceiptInput(r: ReceiptInput): void {
  if (!RECEIPT_METHODS.includes(r.method)) throw new StoreConflict('invalid_input', 'unknown payment method');
  if (typeof r.currency !== 'string' || !/^([A-Z]{3}|credits)$/.test(r.currency)) {
    throw new StoreConflict('invalid_input', 'currency must be an ISO 4217 code or "credits"');
  }
  if (r.paymentRef !== undefined && r.paymentRef !== null) {
    if (typeof r.paymentRef !== 'string' || !/^[\x21-\x7e]{1,100}$/.test(r.paymentRef)) {
      throw new StoreConflict('invalid_input', 'paymentRef must be 1..100 printable characters');
    }
  }
  if (r.invoicing) requireInvoicePolicy(r.invoicing);
  if (r.paid) {
    if (!Number.isSafeInteger(r.paid.minor) || r.paid.minor < 0 || !/^[A-Z]{3}$/.test(r.paid.currency)) {
      throw new StoreConflict('invalid_input', 'paid must be whole minor units of an ISO 4217 currency');
    }
  }
}

/** Bounded, trimmed billing details (empty → null); too long → invalid_input naming the field. */
export function cleanBilling(b: BillingDetails): BillingDetails {
  const one = (field: keyof BillingDetails, v: string | null): string | null => {
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') throw new StoreConflict('invalid_input', `${field} must be text`);
    const t = v.trim();
    if (t.length > BILLING_LIMITS[field]) {
      throw new StoreConflict('invalid_input', `${field} is longer than ${BILLING_LIMITS[field]} characters`);
    }
    return t === '' ? null : t;
  };
  const country = one('country', b.country ?? null);
  if (country !== null && !isCountry(country)) {
    throw new StoreConflict('invalid_input', 'country must be an ISO 3166-1 alpha-2 code such as "DE"');
  }
  return {
    name: one('name', b.name),
    address: one('address', b.address),
    vatId: one('vatId', b.vatId),
    ...(country !== null ? { country } : {}),
  };
}

type Cells = Record<string, unknown>;
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** Map an account_billing row (or none: nothing given yet). */
export function toBilling(row: object | undefined): BillingDetails {
  if (!row) return { name: null, address: null, vatId: null };
  const r = row as Cells;
  const country = strOrNull(r.country);
  return {
    name: strOrNull(r.name),
    address: strOrNull(r.address),
    vatId: strOrNull(r.vat_id),
    ...(country !== null ? { country } : {}),
  };
}

/** Map a receipts row. */
export function toReceipt(row: object): Receipt {
  const r = row as Cells;
  return {
    number: String(r.number),
    accountId: String(r.account_id),
    kind: r.kind as Receipt['kind'],
    method: r.method as ReceiptMethod,
    amount: Number(r.amount),
    currency: String(r.currency),
    paid:
      r.paid_minor === null || r.paid_minor === undefined
        ? null
        : { minor: Number(r.paid_minor), currency: String(r.paid_currency) },
    billing: {
      name: strOrNull(r.billing_name),
      address: strOrNull(r.billing_address),
      vatId: strOrNull(r.billing_vat_id),
      ...(r.billing_country !== null && r.billing_country !== undefined
        ? { country: String(r.billing_country) }
        : {}),
    },
    issuedAt: Number(r.issued_at),
    sourceId: String(r.source_id),
    paymentRef: strOrNull(r.payment_ref),
    refunded: Number(r.refunded ?? 0),
    owed: Number(r.owed ?? 0),
    creditOf: strOrNull(r.credit_of),
    invoice: toInvoice(r),
  };
}

/**
 * The receipts row of a new receipt (the caller has allocated `seq` in the same transaction); `invoice`, the invoice
 * part when one is issued (a top-up's or package's from `input.invoicing`, a credit note's from its invoice).
 */
export function receiptRow(
  series: string,
  seq: number,
  src: { accountId: string; sourceId: string; kind: Receipt['kind']; amount: number; now: number },
  input: ReceiptInput,
  billing: BillingDetails,
  invoice: Invoice | null = null,
): Record<string, string | number | null> {
  return {
    ...invoiceColumns(invoice),
    number: receiptNumber(series, seq),
    series,
    seq,
    account_id: src.accountId,
    source_id: src.sourceId,
    kind: src.kind,
    method: input.method,
    amount: src.amount,
    currency: input.currency,
    paid_minor: input.paid?.minor ?? null,
    paid_currency: input.paid?.currency ?? null,
    billing_name: billing.name,
    billing_address: billing.address,
    billing_vat_id: billing.vatId,
    billing_country: billing.country ?? null,
    issued_at: src.now,
    payment_ref: input.paymentRef ?? null,
    refunded: 0,
    owed: 0,
    credit_of: null,
  };
}

/** A `before` receipt number that is not the account's (listReceipts): not_found, like an unknown receipt. */
export function unknownReceipt(number: string): StoreConflict {
  return new StoreConflict('not_found', `receipt ${String(number).slice(0, 40)} not found`);
}

/** Throw invalid_input unless a page size is 1..1000. */
export function requireReceiptLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) {
    throw new StoreConflict('invalid_input', 'limit must be 1..1000');
  }
}

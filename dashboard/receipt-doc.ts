/**
 * A receipt as people read it (D31): the same lines for the HTML page and the PDF, money formatted per currency
 * (money.ts): "€12.00", "€0.0001", "1,000 credits". A receipt issued with invoicing configured reads as an invoice
 * (or a credit note of one): the seller's block, net, tax and gross (invoice-doc.ts).
 */
import type { RuleSet } from '../gateway/policy/ruleset';
import type { Receipt, ReceiptMethod } from '../gateway/store/receipts';
import { amountRows, countryName, invoiceNotes, REVERSE_CHARGE_TEXT, sellerLines } from './invoice-doc';
import { formatExact, type MoneyUnit } from './money';
import type { PlanPeriod } from '../gateway/store/plan-periods';
import { planReceiptDoc } from './payments/unlimited-receipt';

/** The receipt's printable content. */
export interface ReceiptDoc {
  title: string;
  number: string;
  /** YYYY-MM-DD (UTC). */
  date: string;
  /** ISO time of issue. */
  issuedAt: string;
  seller: string;
  /** The seller's address and VAT id under its name (an invoice's; empty or absent on a receipt). */
  sellerLines?: string[];
  /** Billing name, address lines, VAT id; the account's e-mail when no name was given. */
  billedTo: string[];
  /** Label / value rows: what, method, amount, paid. */
  rows: { label: string; value: string }[];
  total: { label: string; value: string };
  note: string;
}

const METHODS: Record<ReceiptMethod, string> = {
  card: 'Card (Stripe)',
  crypto: 'Crypto (BTCPay Server)',
  test: 'Test payment (demo, nothing charged)',
  balance: 'Paid from the account balance',
};

/** A money amount of a receipt in its own currency. */
function amountText(r: Receipt, rules: RuleSet): string {
  const unit: MoneyUnit =
    r.currency === 'credits'
      ? { kind: 'credits' }
      : { kind: 'currency', code: r.currency, unitsPerMajor: 10 ** rules.moneyDecimals };
  return formatExact(r.amount, unit);
}

/** Minor units of an ISO currency: 1250 EUR → "€12.50". */
function minorText(minor: number, currency: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
    .maximumFractionDigits as number;
  return formatExact(minor, { kind: 'currency', code: currency, unitsPerMajor: 10 ** digits });
}

/** A top-up's refunds and what of them is owed, for its receipt's rows (none when never refunded). */
function refundRows(r: Receipt, rules: RuleSet): { label: string; value: string }[] {
  if (r.kind !== 'topup' || r.refunded === 0) return [];
  const rows = [{ label: 'Refunded', value: amountText({ ...r, amount: r.refunded }, rules) }];
  if (r.owed > 0)
    rows.push({ label: 'Owed (already spent)', value: amountText({ ...r, amount: r.owed }, rules) });
  return rows;
}

/** A credit note: the refund (or lost dispute) of the top-up receipt it names. */
function creditNoteDoc(
  r: Receipt,
  rules: RuleSet,
  base: Omit<ReceiptDoc, 'title' | 'rows' | 'total' | 'note'>,
): ReceiptDoc {
  if (r.invoice) return invoiceCreditNoteDoc(r, rules, base);
  const amount = amountText(r, rules);
  const paid = r.paid ? minorText(r.paid.minor, r.paid.currency) : amount;
  const rows = [
    { label: 'Item', value: `Refund of receipt ${r.creditOf ?? ''} (${amount})` },
    { label: 'Payment method', value: METHODS[r.method] },
    { label: 'Credit removed', value: amountText({ ...r, amount: r.amount - r.owed }, rules) },
  ];
  if (r.owed > 0)
    rows.push({ label: 'Owed (already spent)', value: amountText({ ...r, amount: r.owed }, rules) });
  return {
    ...base,
    title: `Credit note ${r.number}`,
    rows,
    total: { label: 'Total refunded', value: paid },
    note: 'This credit note cancels the receipt it names, in the amount refunded.',
  };
}

/** A credit note of an invoice: the refunded share of its net, tax and gross. */
function invoiceCreditNoteDoc(
  r: Receipt,
  rules: RuleSet,
  base: Omit<ReceiptDoc, 'title' | 'rows' | 'total' | 'note'>,
): ReceiptDoc {
  const inv = r.invoice as NonNullable<Receipt['invoice']>;
  const amounts = amountRows(inv, true);
  const rows = [
    { label: 'Item', value: `Refund of invoice ${r.creditOf ?? ''} (${amountText(r, rules)})` },
    { label: 'Payment method', value: METHODS[r.method] },
    { label: 'Credit removed', value: amountText({ ...r, amount: r.amount - r.owed }, rules) },
  ];
  if (r.owed > 0)
    rows.push({ label: 'Owed (already spent)', value: amountText({ ...r, amount: r.owed }, rules) });
  rows.push(...amounts.rows);
  const notes = [`This credit note corrects invoice ${r.creditOf ?? ''} by the amounts above.`];
  if (inv.scheme === 'reverse_charge') notes.push(REVERSE_CHARGE_TEXT);
  return { ...base, title: `Credit note ${r.number}`, rows, total: amounts.total, note: notes.join(' ') };
}

/** A top-up's or package's invoice. */
function invoiceDoc(
  r: Receipt,
  rules: RuleSet,
  base: Omit<ReceiptDoc, 'title' | 'rows' | 'total' | 'note'>,
  head: { label: string; value: string }[],
): ReceiptDoc {
  const inv = r.invoice as NonNullable<Receipt['invoice']>;
  const amounts = amountRows(inv, false);
  const rows = [...head];
  if (r.kind === 'topup') rows.push({ label: 'Credited to the balance', value: amountText(r, rules) });
  rows.push(...refundRows(r, rules), ...amounts.rows);
  const total =
    r.method === 'test'
      ? { ...amounts.total, value: `${amounts.total.value} (test, not charged)` }
      : amounts.total;
  return {
    ...base,
    title: `Invoice ${r.number}`,
    rows,
    total,
    note: [...invoiceNotes(r, inv), 'Keep this invoice for your records.'].join(' '),
  };
}

/** The printable receipt (`period`: a plan receipt's period, B). */
export function receiptDoc(
  r: Receipt,
  rules: RuleSet,
  seller: string,
  email: string,
  period?: PlanPeriod,
): ReceiptDoc {
  const amount = amountText(r, rules);
  const what = r.kind === 'package' ? 'Unlimited package (one calendar month)' : `Credit top-up (${amount})`;
  const billedTo = [
    r.billing.name ?? email,
    ...(r.billing.address ? r.billing.address.split('\n') : []),
    ...(r.billing.country ? [countryName(r.billing.country)] : []),
    ...(r.billing.vatId ? [`VAT id: ${r.billing.vatId}`] : []),
  ];
  const rows = [
    { label: 'Item', value: what },
    { label: 'Payment method', value: METHODS[r.method] },
    { label: r.kind === 'package' ? 'Price' : 'Credited', value: amount },
  ];
  const paid = r.paid ? minorText(r.paid.minor, r.paid.currency) : r.currency === 'credits' ? null : amount;
  const issuedAt = new Date(r.issuedAt).toISOString();
  const base = {
    number: r.number,
    date: issuedAt.slice(0, 10),
    issuedAt,
    seller: r.invoice ? r.invoice.seller.name : seller,
    sellerLines: r.invoice ? sellerLines(r.invoice) : [],
    billedTo,
  };
  if (r.kind === 'credit_note') return creditNoteDoc(r, rules, base);
  if (r.kind === 'plan') {
    const plan = planReceiptDoc(r, base, period);
    return r.invoice ? invoiceDoc(r, rules, base, plan.rows) : { ...plan, sellerLines: base.sellerLines };
  }
  if (r.invoice) return invoiceDoc(r, rules, base, rows.slice(0, 2));
  rows.push(...refundRows(r, rules));
  return {
    ...base,
    title: `Receipt ${r.number}`,
    rows,
    total: {
      label: r.method === 'balance' ? 'Total (from balance)' : 'Total paid',
      value: r.method === 'test' ? `${paid ?? amount} (test, not charged)` : (paid ?? amount),
    },
    note:
      r.method === 'balance'
        ? 'Paid from the prepaid balance; the balance was bought with receipts of its own.'
        : 'Thank you. Keep this receipt for your records.',
  };
}

/**
 * Billing details and receipts (issue 15 item 3, D31): strict checks of the billing fields (each refusal names its
 * field), and the account's receipts, each readable only by its own account.
 */
import type { BillingDetails, Receipt } from '../../gateway/store/receipts';
import { BILLING_LIMITS, isReceiptNumber } from '../../gateway/store/receipts';
import { euCountryOfVatId, euVatIdProblem, isCountry } from '../../gateway/store/invoices';
import { StoreConflict } from '../../gateway/store/types';
import type { AppContext } from '../context';
import { DashboardError, invalidField } from '../errors';

/** Receipts shown on the billing page. */
export const RECEIPT_ROWS = 100;

/** Most lines of a postal address. */
const ADDRESS_LINES = 6;

// C0/C1 controls and the Unicode line/paragraph separators; the address allows its own line breaks only.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/;

/** One optional text field: trimmed, empty → null, bounded, no control characters. */
function text(field: string, label: string, raw: unknown, max: number, multiline = false): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') throw invalidField(field, `${label} must be text`);
  const value = raw.replace(/\r\n?/g, '\n').trim();
  if (value === '') return null;
  if (value.length > max) throw invalidField(field, `${label} is at most ${max} characters`);
  if (CONTROL.test(value) || (!multiline && value.includes('\n')) || value.includes('\t')) {
    throw invalidField(field, `${label} contains characters that cannot be printed`);
  }
  return value;
}

/**
 * A VAT (or other tax) id: a country prefix of 2-3 letters and 2-13 letters or digits; spaces, dots and dashes are
 * dropped and letters upper-cased ("de 123 456 789" → "DE123456789").
 */
function vatId(raw: unknown): string | null {
  const value = text('vatId', 'The VAT id', raw, BILLING_LIMITS.vatId);
  if (value === null) return null;
  const compact = value.replace(/[\s.-]/g, '').toUpperCase();
  if (!/^[A-Z]{2,3}[A-Z0-9]{2,13}$/.test(compact) || !/\d/.test(compact)) {
    throw invalidField('vatId', 'The VAT id starts with its country code, e.g. DE123456789');
  }
  // An EU member state's id must have that state's format (checked here; whether it is registered is not).
  const problem = euVatIdProblem(compact);
  if (problem !== null) throw invalidField('vatId', problem);
  return compact;
}

/** The billing country: an ISO 3166-1 alpha-2 code ("" or absent: none). */
function country(raw: unknown): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const c = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
  if (!isCountry(c)) throw invalidField('country', 'Choose a country from the list');
  return c;
}

/** Billing details from a form or JSON body: name, address, country, vatId. */
export function parseBilling(body: Record<string, unknown> | undefined): BillingDetails {
  const b = body ?? {};
  const name = text('billingName', 'The billing name', b['billingName'], BILLING_LIMITS.name);
  const address = text('billingAddress', 'The address', b['billingAddress'], BILLING_LIMITS.address, true);
  if (address !== null) {
    const lines = address.split('\n');
    if (lines.length > ADDRESS_LINES) {
      throw invalidField('billingAddress', `The address has at most ${ADDRESS_LINES} lines`);
    }
  }
  const id = vatId(b['vatId']);
  const idCountry = id === null ? null : euCountryOfVatId(id);
  const given = country(b['country']);
  if (given !== null && idCountry !== null && given !== idCountry) {
    throw invalidField('vatId', `This VAT id is from ${idCountry}; the country chosen is ${given}`);
  }
  return {
    name,
    address:
      address
        ?.split('\n')
        .map((l) => l.trim())
        .join('\n') ?? null,
    vatId: id,
    // An EU VAT id names its country: without a choice, the id's country is taken.
    country: given ?? idCountry,
  };
}

/**
 * A page of the account's receipts, newest first: the first, or the one after receipt `before` (the billing page's
 * "Older receipts" link). A `before` that is not one of the account's receipt numbers is 404, like the receipt itself
 * (the store checks it while it reads the page).
 */
export async function receiptsPage(ctx: AppContext, accountId: string, before: unknown): Promise<Receipt[]> {
  if (before === undefined) return ctx.store.listReceipts(accountId, RECEIPT_ROWS);
  if (typeof before !== 'string' || !isReceiptNumber(before)) throw noSuchReceipt();
  try {
    return await ctx.store.listReceipts(accountId, RECEIPT_ROWS, before);
  } catch (err) {
    if (err instanceof StoreConflict && err.reason === 'not_found') throw noSuchReceipt();
    throw err;
  }
}

const noSuchReceipt = (): DashboardError => new DashboardError('not_found', 'No such receipt');

/** The account's receipt, or 404 (none with that number, or another account's). */
export async function receiptOf(ctx: AppContext, accountId: string, number: unknown): Promise<Receipt> {
  const n = typeof number === 'string' ? number : '';
  const r = isReceiptNumber(n) ? await ctx.store.getReceipt(accountId, n) : null;
  if (!r) throw noSuchReceipt();
  return r;
}

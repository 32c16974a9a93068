/**
 * The invoice parts of a printable receipt (receipt-doc.ts): the seller's block, the buyer's country, the net, tax
 * and gross lines and the tax note (reverse charge, outside the scope, settled from the balance). Amounts are the
 * stored whole minor units, formatted exactly; nothing is computed here but their labels.
 */
import type { Invoice } from '../gateway/store/invoices';
import type { Receipt } from '../gateway/store/receipts';
import { formatExact } from './money';

/** The text of the reverse charge (Council Directive 2006/112/EC, Articles 196 and 226(11a)). */
export const REVERSE_CHARGE_TEXT =
  'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).';

const regions = new Intl.DisplayNames(['en'], { type: 'region' });

/** "Germany" for "DE" (the code itself when the name is unknown). */
export function countryName(code: string): string {
  return regions.of(code) ?? code;
}

/** An invoice amount: whole minor units at the invoice's exponent ("€12.50"). */
export function invoiceMoney(inv: Invoice, minor: number): string {
  return formatExact(minor, { kind: 'currency', code: inv.currency, unitsPerMajor: 10 ** inv.exponent });
}

/** Basis points as a percentage: 1900 → "19 %", 770 → "7.7 %", 555 → "5.55 %". */
export function ratePercent(bp: number): string {
  const whole = Math.floor(bp / 100);
  const frac = String(bp % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return `${whole}${frac === '' ? '' : `.${frac}`} %`;
}

/** The seller's lines under its name: address lines, its country, its VAT id. */
export function sellerLines(inv: Invoice): string[] {
  return [
    ...inv.seller.address.split('\n'),
    ...(inv.seller.address.toLowerCase().includes(countryName(inv.seller.country).toLowerCase())
      ? []
      : [countryName(inv.seller.country)]),
    ...(inv.seller.vatId ? [`VAT id: ${inv.seller.vatId}`] : []),
  ];
}

/** The tax line's label. */
function taxLabel(inv: Invoice): string {
  if (inv.scheme === 'reverse_charge') return 'VAT 0 % (reverse charge)';
  if (inv.scheme === 'outside_scope') return 'VAT 0 % (not subject to VAT)';
  return `VAT ${ratePercent(inv.rateBp)}${inv.taxCountry ? ` (${countryName(inv.taxCountry)})` : ''}`;
}

/** Net, tax and gross as rows; `credited` labels a credit note's. */
export function amountRows(
  inv: Invoice,
  credited: boolean,
): { rows: { label: string; value: string }[]; total: { label: string; value: string } } {
  return {
    rows: [
      { label: credited ? 'Net amount credited' : 'Net amount', value: invoiceMoney(inv, inv.net) },
      { label: taxLabel(inv), value: invoiceMoney(inv, inv.tax) },
    ],
    total: {
      label: credited ? 'Total credited (gross)' : 'Total (gross)',
      value: invoiceMoney(inv, inv.gross),
    },
  };
}

/** The invoice's notes: how the tax was decided, and how it was paid when no money moved. */
export function invoiceNotes(r: Receipt, inv: Invoice): string[] {
  const notes: string[] = [];
  if (inv.scheme === 'reverse_charge') notes.push(REVERSE_CHARGE_TEXT);
  if (inv.scheme === 'outside_scope')
    notes.push('Not subject to VAT in the seller’s country: the place of supply is outside its tax area.');
  if (r.method === 'balance')
    notes.push(
      'Settled from the prepaid balance: nothing is due. The VAT shown is included in the price; it was invoiced with the top-ups that funded the balance.',
    );
  if (r.method === 'test') notes.push('Test payment: nothing was charged.');
  return notes;
}

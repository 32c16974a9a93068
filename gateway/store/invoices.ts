/**
 * Invoices (docs/decisions.md, "Invoices"): what both stores share. A receipt issued while the operator has configured
 * a seller is also an invoice: it keeps a snapshot of the seller, the buyer's country, the tax treatment and three
 * amounts in whole minor units of the money paid (net + tax = gross, always). Prices are gross: the amount a customer
 * pays is the amount credited, and the tax is the share of it the rate stands for (splitGross). A credit note of an
 * invoice carries the part of the invoice's amounts that its refund stands for, computed on running totals so the
 * credit notes of a fully refunded invoice add up to the invoice exactly (creditNoteInvoice).
 */
import { StoreConflict } from './types';

/** The operator's business as the invoices name it. */
export interface Seller {
  name: string;
  /** Postal address, lines separated by "\n". */
  address: string;
  vatId: string | null;
  /** ISO 3166-1 alpha-2: where the seller is established (its rate applies when the buyer's country is unknown). */
  country: string;
}

/** What the operator's config says about invoices (dashboard.invoicing, compiled). */
export interface InvoicePolicy {
  seller: Seller;
  /** Tax rate per buyer country in basis points (19 % = 1900); always holds the seller's country. */
  rates: Record<string, number>;
  /** EU business customers in another member state with a VAT id of valid format pay no tax (reverse charge). */
  reverseCharge: boolean;
  /** Digits of the rule set's money ("EUR" receipts: 4, units of 0.0001 EUR). */
  moneyDecimals: number;
  /** What credits cost when the receipt names no payment in money (B's test payments); null: no invoice then. */
  creditPrice: { currency: string; unitsPerMinorUnit: number } | null;
}

/**
 * How the tax was decided: 'vat' (the rate of `taxCountry`), 'reverse_charge' (EU business customer, 0 %),
 * 'outside_scope' (a customer outside the seller's tax area with no configured rate, 0 %).
 */
export type TaxScheme = 'vat' | 'reverse_charge' | 'outside_scope';

/** The invoice part of a receipt. */
export interface Invoice {
  seller: Seller;
  buyerCountry: string | null;
  scheme: TaxScheme;
  /** The country whose rate applied (null when none did). */
  taxCountry: string | null;
  rateBp: number;
  /** ISO 4217 code and the digits of the amounts below (2 for cents; more for sub-cent test top-ups). */
  currency: string;
  exponent: number;
  net: number;
  tax: number;
  gross: number;
}

/** The EU member states (ISO 3166-1 alpha-2; Greece is GR here, EL in its VAT ids). */
export const EU_COUNTRIES: readonly string[] = [
  'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU',
  'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
]; // prettier-ignore

/**
 * The shape of each member state's VAT id after its prefix, from the European Commission's VIES format table; a
 * format check only (whether the number is registered needs VIES, which this gateway does not call).
 */
const EU_VAT_FORMATS: Readonly<Record<string, { re: RegExp; hint: string }>> = {
  AT: { re: /^U\d{8}$/, hint: 'ATU and 8 digits' },
  BE: { re: /^[01]\d{9}$/, hint: 'BE and 10 digits starting with 0 or 1' },
  BG: { re: /^\d{9,10}$/, hint: 'BG and 9 or 10 digits' },
  CY: { re: /^\d{8}[A-Z]$/, hint: 'CY, 8 digits and a letter' },
  CZ: { re: /^\d{8,10}$/, hint: 'CZ and 8 to 10 digits' },
  DE: { re: /^\d{9}$/, hint: 'DE and 9 digits' },
  DK: { re: /^\d{8}$/, hint: 'DK and 8 digits' },
  EE: { re: /^\d{9}$/, hint: 'EE and 9 digits' },
  EL: { re: /^\d{9}$/, hint: 'EL and 9 digits' },
  ES: {
    re: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
    hint: 'ES and 9 characters (a letter or digit, 7 digits, a letter or digit)',
  },
  FI: { re: /^\d{8}$/, hint: 'FI and 8 digits' },
  FR: { re: /^[A-HJ-NP-Z0-9]{2}\d{9}$/, hint: 'FR, 2 letters or digits and 9 digits' },
  HR: { re: /^\d{11}$/, hint: 'HR and 11 digits' },
  HU: { re: /^\d{8}$/, hint: 'HU and 8 digits' },
  IE: { re: /^(\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/, hint: 'IE and 8 or 9 characters, e.g. IE6388047V' },
  IT: { re: /^\d{11}$/, hint: 'IT and 11 digits' },
  LT: { re: /^(\d{9}|\d{12})$/, hint: 'LT and 9 or 12 digits' },
  LU: { re: /^\d{8}$/, hint: 'LU and 8 digits' },
  LV: { re: /^\d{11}$/, hint: 'LV and 11 digits' },
  MT: { re: /^\d{8}$/, hint: 'MT and 8 digits' },
  NL: { re: /^\d{9}B\d{2}$/, hint: 'NL, 9 digits, B and 2 digits' },
  PL: { re: /^\d{10}$/, hint: 'PL and 10 digits' },
  PT: { re: /^\d{9}$/, hint: 'PT and 9 digits' },
  RO: { re: /^[1-9]\d{1,9}$/, hint: 'RO and 2 to 10 digits' },
  SE: { re: /^\d{10}01$/, hint: 'SE and 12 digits ending in 01' },
  SI: { re: /^\d{8}$/, hint: 'SI and 8 digits' },
  SK: { re: /^\d{10}$/, hint: 'SK and 10 digits' },
};

/** The VAT id prefix of an EU country (GR → EL), or null outside the EU. */
export function vatPrefixOf(country: string): string | null {
  if (!EU_COUNTRIES.includes(country)) return null;
  return country === 'GR' ? 'EL' : country;
}

/** The EU country a VAT id's prefix names (EL → GR), or null when the prefix is not an EU one. */
export function euCountryOfVatId(vatId: string): string | null {
  const prefix = vatId.slice(0, 2);
  if (prefix === 'EL') return 'GR';
  return prefix !== 'GR' && EU_COUNTRIES.includes(prefix) ? prefix : null;
}

/**
 * Why a compact VAT id ("DE123456789") with an EU prefix does not have its member state's format, or null when it
 * does (or when its prefix is not an EU member state's: those are not checked here).
 */
export function euVatIdProblem(vatId: string): string | null {
  if (euCountryOfVatId(vatId) === null) return null;
  const f = EU_VAT_FORMATS[vatId.slice(0, 2)];
  if (!f) return null;
  return f.re.test(vatId.slice(2)) ? null : `A ${vatId.slice(0, 2)} VAT id is ${f.hint}`;
}

/** ISO 3166-1 alpha-2 codes (officially assigned). */
export const COUNTRY_CODES: readonly string[] = (
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
  'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO ' +
  'FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE ' +
  'JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO ' +
  'MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW ' +
  'PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM ' +
  'TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
).split(' ');

/** Whether `c` is an ISO 3166-1 alpha-2 country code. */
export function isCountry(c: unknown): c is string {
  return typeof c === 'string' && COUNTRY_CODES.includes(c);
}

/**
 * Split a gross amount (integer minor units) at a rate (basis points) into net and tax: tax is the gross's share
 * rate / (100 % + rate), rounded to the nearest minor unit with halves up, and net is the rest. So net + tax = gross
 * exactly, both are ≥ 0, and tax is within half a minor unit of the exact share (test/unit/store/invoice-money).
 */
export function splitGross(gross: number, rateBp: number): { net: number; tax: number } {
  if (!Number.isSafeInteger(gross) || gross < 0) throw new RangeError('gross must be a whole amount ≥ 0');
  if (!Number.isSafeInteger(rateBp) || rateBp < 0 || rateBp > 10_000)
    throw new RangeError('rate out of range');
  const g = BigInt(gross);
  const r = BigInt(rateBp);
  const d = 10_000n + r;
  // round(g·r / d) with halves up, in integers: floor((2·g·r + d) / (2·d)).
  const tax = Number((2n * g * r + d) / (2n * d));
  return { net: gross - tax, tax };
}

/** The digits of an ISO 4217 currency's minor unit (EUR 2, JPY 0). */
export function currencyExponent(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits as number;
  } catch {
    return 2;
  }
}

/** `value` at `exponent` digits, with trailing zeros dropped down to the currency's own digits. */
function normalise(value: bigint, exponent: number, currency: string) {
  const min = currencyExponent(currency);
  let v = value;
  let e = exponent;
  while (e > min && v % 10n === 0n) {
    v /= 10n;
    e -= 1;
  }
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? { gross: Number(v), exponent: e, currency } : null;
}

/**
 * The money a receipt stands for: the payment when one is named (card, crypto), else the rule set's money (A: "EUR"
 * in units of 10^-moneyDecimals), else credits at the configured credit price. Null when no exact amount exists.
 */
export function grossOf(
  policy: Pick<InvoicePolicy, 'moneyDecimals' | 'creditPrice'>,
  amount: number,
  currency: string,
  paid: { minor: number; currency: string } | null | undefined,
): { gross: number; exponent: number; currency: string } | null {
  if (paid) return { gross: paid.minor, exponent: currencyExponent(paid.currency), currency: paid.currency };
  if (currency !== 'credits') return normalise(BigInt(amount), policy.moneyDecimals, currency);
  const price = policy.creditPrice;
  if (!price) return null;
  const base = currencyExponent(price.currency);
  // Credits per minor unit may leave a fraction of a cent: exact in at most 6 more digits, or no invoice.
  for (let extra = 0; extra <= 6; extra += 1) {
    const scaled = BigInt(amount) * 10n ** BigInt(extra);
    if (scaled % BigInt(price.unitsPerMinorUnit) === 0n)
      return normalise(scaled / BigInt(price.unitsPerMinorUnit), base + extra, price.currency);
  }
  return null;
}

/** The tax treatment of a sale to a buyer with these billing details. */
export function taxTreatment(
  policy: Pick<InvoicePolicy, 'seller' | 'rates' | 'reverseCharge'>,
  buyer: { country?: string | null; vatId: string | null },
): { scheme: TaxScheme; taxCountry: string | null; rateBp: number } {
  const home = policy.seller.country;
  const homeRate = { scheme: 'vat' as const, taxCountry: home, rateBp: policy.rates[home] ?? 0 };
  const c = buyer.country ?? null;
  if (c === null || c === home) return homeRate;
  const bothEu = EU_COUNTRIES.includes(c) && EU_COUNTRIES.includes(home);
  if (bothEu) {
    const id = buyer.vatId;
    if (policy.reverseCharge && id !== null && euCountryOfVatId(id) === c && euVatIdProblem(id) === null) {
      return { scheme: 'reverse_charge', taxCountry: null, rateBp: 0 };
    }
    // A consumer in another member state: its rate when configured (OSS), else the seller's (under the threshold).
    const rate = policy.rates[c];
    return rate === undefined ? homeRate : { scheme: 'vat', taxCountry: c, rateBp: rate };
  }
  const rate = policy.rates[c];
  return rate === undefined
    ? { scheme: 'outside_scope', taxCountry: null, rateBp: 0 }
    : { scheme: 'vat', taxCountry: c, rateBp: rate };
}

/** The invoice of a top-up or package, or null when its money cannot be stated exactly. */
export function invoiceFor(
  policy: InvoicePolicy,
  buyer: { country?: string | null; vatId: string | null },
  sale: { amount: number; currency: string; paid?: { minor: number; currency: string } | null },
): Invoice | null {
  // A sale that names no money and no units (a plan paid in a test) has nothing to invoice.
  if (!sale.paid && sale.amount === 0) return null;
  const money = grossOf(policy, sale.amount, sale.currency, sale.paid);
  if (!money) return null;
  const t = taxTreatment(policy, buyer);
  const { net, tax } = splitGross(money.gross, t.rateBp);
  return { seller: policy.seller, buyerCountry: buyer.country ?? null, ...t, ...money, net, tax };
}

/**
 * The invoice part of a credit note refunding `delta` more units of a top-up of `amount` units whose earlier refunds
 * took `before` units: the difference of the running totals' shares (gross: rounded down; tax: splitGross of the
 * running gross), so every credit note is ≥ 0 and all of them together, once the top-up is refunded in full, equal
 * the invoice's net, tax and gross.
 */
export function creditNoteInvoice(inv: Invoice, amount: number, before: number, delta: number): Invoice {
  const share = (u: number): number =>
    amount <= 0 ? 0 : Number((BigInt(inv.gross) * BigInt(Math.min(u, amount))) / BigInt(amount));
  const g0 = share(before);
  const g1 = share(before + delta);
  const t0 = splitGross(g0, inv.rateBp).tax;
  const t1 = splitGross(g1, inv.rateBp).tax;
  return { ...inv, gross: g1 - g0, tax: t1 - t0, net: g1 - g0 - (t1 - t0) };
}

/** The receipts columns of an invoice (all null: a receipt without one); the buyer's country is the billing's. */
export function invoiceColumns(inv: Invoice | null): Record<string, string | number | null> {
  return {
    invoice_seller: inv ? JSON.stringify(inv.seller) : null,
    tax_scheme: inv?.scheme ?? null,
    tax_country: inv?.taxCountry ?? null,
    tax_rate_bp: inv?.rateBp ?? null,
    invoice_currency: inv?.currency ?? null,
    invoice_exponent: inv?.exponent ?? null,
    net_minor: inv?.net ?? null,
    tax_minor: inv?.tax ?? null,
    gross_minor: inv?.gross ?? null,
  };
}

/** The invoice of a receipts row, or null (a receipt issued without invoicing, or before it existed). */
export function toInvoice(row: Record<string, unknown>): Invoice | null {
  if (row['gross_minor'] === null || row['gross_minor'] === undefined) return null;
  const str = (k: string): string | null => (row[k] === null || row[k] === undefined ? null : String(row[k]));
  return {
    seller: JSON.parse(String(row['invoice_seller'])) as Seller,
    buyerCountry: str('billing_country'),
    scheme: String(row['tax_scheme']) as TaxScheme,
    taxCountry: str('tax_country'),
    rateBp: Number(row['tax_rate_bp']),
    currency: String(row['invoice_currency']),
    exponent: Number(row['invoice_exponent']),
    net: Number(row['net_minor']),
    tax: Number(row['tax_minor']),
    gross: Number(row['gross_minor']),
  };
}

/** Throw invalid_input unless a policy handed to the store is whole (config validation checks it first). */
export function requireInvoicePolicy(p: InvoicePolicy): void {
  const bad = (m: string) => new StoreConflict('invalid_input', `invoicing: ${m}`);
  if (!p.seller || typeof p.seller.name !== 'string' || p.seller.name.trim() === '') throw bad('seller.name');
  if (!isCountry(p.seller.country)) throw bad('seller.country');
  for (const [c, bp] of Object.entries(p.rates)) {
    if (!isCountry(c) || !Number.isSafeInteger(bp) || bp < 0 || bp > 10_000) throw bad(`rates.${c}`);
  }
  if (p.rates[p.seller.country] === undefined) throw bad(`rates.${p.seller.country}`);
}

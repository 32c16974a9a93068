/**
 * Money as people read it (issue 15 item 3): amounts in a currency formatted by Intl.NumberFormat for that
 * currency, credits as whole numbers. Stored money is integer units (gateway/policy/ruleset.ts); the JSON API keeps
 * its exact form, only the pages use these.
 */
import type { RuleSet } from '../gateway/policy/ruleset';

/** What one stored unit of money is. */
export type MoneyUnit = { kind: 'currency'; code: string; unitsPerMajor: number } | { kind: 'credits' };

/**
 * The rule set's money: A counts 0.0001 EUR per unit (spec: "0.0001 EUR per request"), B whole credits. The
 * currency is the spec's; a rule set with decimals is in euros.
 */
export function moneyUnit(rules: RuleSet): MoneyUnit {
  return rules.moneyDecimals === 0
    ? { kind: 'credits' }
    : { kind: 'currency', code: 'EUR', unitsPerMajor: 10 ** rules.moneyDecimals };
}

const LOCALE = 'en';

/** `units` as an exact decimal string in major units ("12.3456"), so no float ever rounds it. */
function decimal(units: number, unitsPerMajor: number): string {
  const digits = Math.round(Math.log10(unitsPerMajor));
  const abs = Math.abs(units);
  const sign = units < 0 ? '-' : '';
  if (digits === 0) return `${sign}${abs}`;
  return `${sign}${Math.floor(abs / unitsPerMajor)}.${String(abs % unitsPerMajor).padStart(digits, '0')}`;
}

/** The currency's minor-unit digits (EUR 2, JPY 0, BHD 3). */
function minorDigits(code: string): number {
  return new Intl.NumberFormat(LOCALE, { style: 'currency', currency: code }).resolvedOptions()
    .maximumFractionDigits as number;
}

function credits(units: number): string {
  return `${new Intl.NumberFormat(LOCALE).format(units)} ${Math.abs(units) === 1 ? 'credit' : 'credits'}`;
}

/**
 * A balance: to the currency's minor unit, cut toward zero (never shows more than is there): 123456 units of
 * 0.0001 EUR are "€12.34". Credits: "1,200 credits".
 */
export function formatBalance(units: number, unit: MoneyUnit): string {
  if (unit.kind === 'credits') return credits(units);
  // Intl.NumberFormat v3 options (Node 20): TypeScript's lib does not list 'negative' yet.
  const options = { style: 'currency', currency: unit.code, roundingMode: 'trunc', signDisplay: 'negative' };
  const f = new Intl.NumberFormat(LOCALE, options as Intl.NumberFormatOptions);
  return f.format(decimal(units, unit.unitsPerMajor) as unknown as number);
}

/**
 * A price or a ledger amount, exact: at least the currency's minor digits, more only when needed
 * (€50.00, €0.0001, €1.2345). Credits: "1 credit".
 */
export function formatExact(units: number, unit: MoneyUnit): string {
  if (unit.kind === 'credits') return credits(units);
  const min = minorDigits(unit.code);
  const digits = Math.round(Math.log10(unit.unitsPerMajor));
  const f = new Intl.NumberFormat(LOCALE, {
    style: 'currency',
    currency: unit.code,
    minimumFractionDigits: min,
    maximumFractionDigits: Math.max(min, digits),
  });
  return f.format(decimal(units, unit.unitsPerMajor) as unknown as number);
}

/** Whether a balance shown to the minor unit hides a remainder (then the page also shows the exact amount). */
export function hasSubMinorRemainder(units: number, unit: MoneyUnit): boolean {
  if (unit.kind === 'credits') return false;
  const per = unit.unitsPerMajor / 10 ** minorDigits(unit.code);
  return per > 1 && units % per !== 0;
}

/**
 * The price of one credit bought by card: `unitsPerMinorUnit` credits per minor unit of `currency` (Stripe
 * settings), e.g. 1 → "€0.01", 4 → "€0.0025".
 */
export function creditPrice(currency: string, unitsPerMinorUnit: number): string {
  const code = currency.toUpperCase();
  const min = minorDigits(code);
  // One credit is 1/unitsPerMinorUnit of a minor unit: exact in at most min + 6 digits for the divisors in use.
  const major = 1 / (unitsPerMinorUnit * 10 ** min);
  return new Intl.NumberFormat(LOCALE, {
    style: 'currency',
    currency: code,
    minimumFractionDigits: min,
    maximumFractionDigits: Math.min(20, min + 6),
  }).format(major);
}

/** A configured decimal price ("199.00", "0.5") in its currency: at least the currency's minor digits, e.g. "€199.00". */
export function decimalPrice(amount: string, currency: string): string {
  const min = minorDigits(currency);
  const decimals = amount.includes('.') ? amount.length - amount.indexOf('.') - 1 : 0;
  return new Intl.NumberFormat(LOCALE, {
    style: 'currency',
    currency,
    minimumFractionDigits: min,
    maximumFractionDigits: Math.max(min, decimals),
  }).format(Number(amount));
}

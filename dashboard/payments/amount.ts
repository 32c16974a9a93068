/**
 * Decimal amounts as payment providers write them ("5", "5.0", "5.00", "5.000"), read exactly into integer minor
 * units (D16: money is never a float). Greenfield's `amount` is a decimal string whose scale follows how the amount
 * was made, so "5", "5.0" and "5.00" are the same 5.00 EUR.
 */

/** Digits, an optional fraction; no sign, exponent, spaces, separators or leading zeros. */
const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * The integer count of minor units (`exponent` digits after the point: 2 for EUR) that `text` states exactly, or
 * null when it is not a plain decimal, has non-zero digits beyond the minor unit, or passes 2^53.
 */
export function minorUnits(text: unknown, exponent = 2): number | null {
  if (typeof text !== 'string' || text.length > 40) return null;
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const whole = m[1] ?? '0';
  const fraction = m[2] ?? '';
  if (/[^0]/.test(fraction.slice(exponent))) return null;
  const minor =
    BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.slice(0, exponent).padEnd(exponent, '0'));
  return minor <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(minor) : null;
}

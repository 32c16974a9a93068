/**
 * Form and JSON input checks. The field rules are the accounts service's (gateway/accounts/fields.ts, address.ts),
 * shared with the admin API so an account looks the same from both sides; refusals become DashboardErrors.
 */
import * as adminAddress from '../gateway/accounts/address';
import { InputError } from '../gateway/accounts/errors';
import * as adminValidate from '../gateway/accounts/fields';
import { parseMoney, type RuleSet } from '../gateway/policy/ruleset';
import { DashboardError, invalidField } from './errors';

/** Run a shared validator; its InputError becomes a field error. */
function adapt<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof InputError) throw invalidField(field, capitalise(err.detail));
    throw err;
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** An e-mail address (trimmed). */
export const email = (v: unknown): string => adapt('email', () => adminValidate.email(v));
/** A person's name (A). */
export const name = (v: unknown): string => adapt('name', () => adminValidate.name(v));
/** A password of 12..1024 characters (A). */
export const password = (v: unknown): string => adapt('password', () => adminValidate.password(v));
/** A key label: required in A (spec: "a label is set on each key"), optional in B. */
export function label(rules: RuleSet, v: unknown): string | null {
  const empty = v === undefined || (typeof v === 'string' && v.trim() === '');
  if (empty) {
    if (rules.keyLabelRequired) throw invalidField('label', 'Give the key a label, e.g. "production server"');
    return null;
  }
  return adapt('label', () => adminValidate.label(v));
}

/** A whitelist address or block, normalised to CIDR (D18). */
export function whitelistAddress(rules: RuleSet, v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '')
    throw invalidField('address', 'Enter an IPv4 or IPv6 address');
  return adapt('address', () =>
    adminAddress.normaliseWhitelistAddress(v, rules.limits.whitelistMinIpv6Prefix),
  );
}

/** A top-up amount in the rule set's money (A: EUR with up to 4 decimals; B: whole credits), above zero. */
export function amount(rules: RuleSet, v: unknown): number {
  const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : v;
  const units = parseMoney(
    rules,
    rules.moneyDecimals === 0 ? text : typeof text === 'string' ? text : undefined,
  );
  const what =
    rules.moneyDecimals === 0 ? 'a whole number of credits' : 'an amount in EUR such as 20 or 12.50';
  if (units === null) throw invalidField('amount', `Enter ${what}`);
  if (units <= 0) throw invalidField('amount', 'The amount must be greater than zero');
  return units;
}

/** An opaque id from a path (store ids are short ASCII); anything else cannot exist. */
export function id(v: unknown): string {
  if (typeof v !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(v)) {
    throw new DashboardError('not_found', 'No such item on your account');
  }
  return v;
}

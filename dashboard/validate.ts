/**
 * Form and JSON input checks. The field rules are the admin API's (gateway/admin/validate.ts, address.ts) so an
 * account looks the same from both sides; their refusals become DashboardErrors naming the field.
 */
import * as adminAddress from '../gateway/admin/address';
import { AdminProblem } from '../gateway/admin/problem';
import * as adminValidate from '../gateway/admin/validate';
import { parseMoney, type RuleSet } from '../gateway/policy/ruleset';
import { DashboardError, invalidField } from './errors';

/** Run an admin validator; its AdminProblem becomes a field error with the field name stripped from the text. */
function adapt<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof AdminProblem) {
      const text = err.detail.startsWith(`${field}: `) ? err.detail.slice(field.length + 2) : err.detail;
      throw invalidField(field, capitalise(text));
    }
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

/** Strict validation of admin request bodies and parameters: every refusal is a 400 naming the field. */
import { z } from 'zod';
import { KEY_PREFIX } from '../core/keys';
import type { RuleSet } from '../policy/ruleset';
import { parseMoney } from '../policy/ruleset';
import * as fields from '../accounts/fields';
import { asProblem } from './input';
import { invalid } from './problem';

/** Parse `body` as a strict object with these optional members (unknown members are refused by name). */
export function parseBody(body: unknown, fields: readonly string[]): Record<string, unknown> {
  const shape = Object.fromEntries(fields.map((f) => [f, z.unknown().optional()]));
  const result = z.strictObject(shape).safeParse(body === undefined ? {} : body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    throw invalid(safeName(issue.keys[0]), `unknown field; allowed fields: ${fields.join(', ') || '(none)'}`);
  }
  throw invalid('body', 'the request body must be a JSON object');
}

/** A field name fit to echo: identifiers only, never something shaped like a key (D14). */
function safeName(name: string | undefined): string {
  const ok =
    name !== undefined && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(name) && !name.startsWith(KEY_PREFIX);
  return ok ? name : '(unnamed field)';
}

function check<T>(schema: z.ZodType<T>, name: string, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  throw invalid(name, r.error.issues[0]?.message ?? 'invalid value');
}

/** A required string with a precise message when missing or of another type. */
function str(what: string) {
  return z.string({
    error: (iss) => (iss.input === undefined ? 'is required' : `must be a string (${what})`),
  });
}

/** An e-mail address, trimmed (gateway/accounts/fields.ts); a refusal is a 400 naming the field. */
export const email = (value: unknown): string => asProblem(() => fields.email(value));
/** A person's or company's name: 1..200 characters, no control characters. */
export const name = (value: unknown): string => asProblem(() => fields.name(value));
/** A password: 12..1024 characters (code points). */
export const password = (value: unknown): string => asProblem(() => fields.password(value));
/** A key label: 1..100 characters, no control characters. */
export const label = (value: unknown): string => asProblem(() => fields.label(value));

/** A positive money amount in integer units: A a decimal EUR string (≤ 4 decimals), B whole credits. */
export function amount(rules: RuleSet, value: unknown): number {
  if (value === undefined) throw invalid('amount', 'is required');
  const units = parseMoney(rules, value);
  if (units === null) {
    throw invalid(
      'amount',
      rules.moneyDecimals === 0
        ? 'must be a whole number of credits (digits only, no sign, exponent or decimals)'
        : 'must be a EUR amount as a decimal string with at most 4 decimals, e.g. "12.50"',
    );
  }
  if (units <= 0) throw invalid('amount', 'must be greater than zero');
  return units;
}

/** An Idempotency-Key header value: 1..200 visible ASCII characters. */
export function idempotencyKey(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!/^[\x21-\x7e]{1,200}$/.test(value)) {
    throw invalid('Idempotency-Key', 'must be 1 to 200 visible ASCII characters');
  }
  return value;
}

/** An ISO 8601 date-time with a time zone, strictly after `now`; returns epoch ms. */
export function futureDateTime(param: string, value: unknown, now: number): number {
  const s = check(str('an ISO 8601 date-time'), param, value);
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/.test(s);
  const ms = ok ? Date.parse(s) : NaN;
  if (Number.isNaN(ms) || !sameCalendarDate(s, ms)) {
    throw invalid(param, 'must be an ISO 8601 date-time with a time zone, e.g. "2026-12-31T23:59:59Z"');
  }
  if (ms <= now) throw invalid(param, `must be in the future (now is ${new Date(now).toISOString()})`);
  return ms;
}

/** Date.parse rolls 2026-02-30 over to March; refuse days that do not exist. */
function sameCalendarDate(s: string, ms: number): boolean {
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(s);
  const shift = offset
    ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000
    : 0;
  return new Date(ms + shift).toISOString().slice(0, 10) === s.slice(0, 10);
}

/** A UTC day `YYYY-MM-DD` that exists. */
export function day(param: string, value: unknown): string {
  const s = check(str('a day YYYY-MM-DD'), param, value);
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(s) ? Date.parse(`${s}T00:00:00Z`) : NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== s) {
    throw invalid(param, 'must be a UTC day YYYY-MM-DD');
  }
  return s;
}

/** Refuse query parameters other than `allowed`, and repeated ones. */
export function parseQuery(query: unknown, allowed: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (!allowed.includes(k))
      throw invalid(safeName(k), `unknown query parameter; allowed: ${allowed.join(', ') || '(none)'}`);
    if (typeof v !== 'string') throw invalid(k, 'must be given once');
    out[k] = v;
  }
  return out;
}

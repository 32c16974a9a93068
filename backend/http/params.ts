/** Query-parameter validation for the backend: values or problems (never thrown, never a 500). */
import { parseIPv4 } from '../ipv4';
import { MAX_SEARCH_LIMIT } from '../search/index';
import { normaliseName } from '../search/normalise';
import { problem, type Problem } from './problem';

/** A validated value or the problem that names the parameter. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/**
 * Plain decimal: optional minus, 1-3 integer digits, optional fraction of 1-20 digits. Rejects signs other
 * than "-", exponents, hex, Infinity/NaN, spaces, commas, ".5" and "5." (see docs/decisions.md).
 */
const DECIMAL = /^-?\d{1,3}(?:\.\d{1,20})?$/;

/** The single value of a parameter: missing, empty and repeated are problems. */
export function single(params: URLSearchParams, name: string): Parsed<string> {
  const all = params.getAll(name);
  if (all.length === 0) return fail(name, `query parameter ${name} is required`);
  if (all.length > 1) return fail(name, `query parameter ${name} must be given once, got ${all.length}`);
  const value = all[0] as string;
  if (value === '') return fail(name, `query parameter ${name} must not be empty`);
  return { ok: true, value };
}

/** A finite plain decimal within [-limit, limit]. */
export function coordinate(params: URLSearchParams, name: string, limit: number): Parsed<number> {
  const raw = single(params, name);
  if (!raw.ok) return raw;
  if (!DECIMAL.test(raw.value)) return fail(name, `${name} must be a plain decimal number such as 48.8584`);
  const value = Number(raw.value);
  if (!(value >= -limit && value <= limit))
    return fail(name, `${name} must be between -${limit} and ${limit}`);
  return { ok: true, value: value === 0 ? 0 : value };
}

/** A strict dotted-quad IPv4 address: the text and its uint32. */
export function ipv4(params: URLSearchParams, name: string): Parsed<{ text: string; value: number }> {
  const raw = single(params, name);
  if (!raw.ok) return raw;
  const value = parseIPv4(raw.value);
  if (value === null) {
    return fail(
      name,
      `${name} must be a dotted-quad IPv4 address such as 8.8.8.8 (four octets 0-255, no leading zeros)`,
    );
  }
  return { ok: true, value: { text: raw.value, value } };
}

/** Longest accepted search text, in characters. */
export const MAX_QUERY_LENGTH = 200;
/** Results per search when `limit` is absent, and the most a search may ask for. */
export const DEFAULT_SEARCH_LIMIT = 10;
export { MAX_SEARCH_LIMIT };

/** The search text and its normalised key: at most 200 characters, with at least one letter or digit. */
export function searchText(params: URLSearchParams, name: string): Parsed<{ text: string; key: string }> {
  const raw = single(params, name);
  if (!raw.ok) return raw;
  if (raw.value.length > MAX_QUERY_LENGTH)
    return fail(name, `${name} must be at most ${MAX_QUERY_LENGTH} characters, got ${raw.value.length}`);
  const key = normaliseName(raw.value);
  if (key === '') return fail(name, `${name} must contain at least one letter or digit`);
  return { ok: true, value: { text: raw.value, key } };
}

/** An optional whole number 1..max written plainly (no sign, no leading zero); `fallback` when absent. */
export function limit(params: URLSearchParams, name: string, fallback: number, max: number): Parsed<number> {
  if (!params.has(name)) return { ok: true, value: fallback };
  const raw = single(params, name);
  if (!raw.ok) return raw;
  if (!/^[1-9]\d{0,2}$/.test(raw.value) || Number(raw.value) > max)
    return fail(name, `${name} must be a whole number from 1 to ${max}`);
  return { ok: true, value: Number(raw.value) };
}

/**
 * An optional comma-separated list of ISO 3166-1 alpha-2 codes (any case, e.g. "us,ca"), each known to the data:
 * the upper-case codes and their country indexes (duplicates dropped), null when absent.
 */
export function countryCodes(
  params: URLSearchParams,
  name: string,
  indexOf: (code: string) => number,
): Parsed<{ codes: string[]; index: number[] } | null> {
  if (!params.has(name)) return { ok: true, value: null };
  const raw = single(params, name);
  if (!raw.ok) return raw;
  if (!/^[A-Za-z]{2}(?:,[A-Za-z]{2}){0,49}$/.test(raw.value))
    return fail(
      name,
      `${name} must be a comma-separated list of up to 50 two-letter ISO 3166-1 codes such as us,ca`,
    );
  const codes: string[] = [];
  const index: number[] = [];
  for (const part of raw.value.toUpperCase().split(',')) {
    if (codes.includes(part)) continue;
    const i = indexOf(part);
    if (i < 0) return fail(name, `${name}: ${part} is not an ISO 3166-1 alpha-2 country code`);
    codes.push(part);
    index.push(i);
  }
  return { ok: true, value: { codes, index } };
}

function fail(name: string, detail: string): { ok: false; problem: Problem } {
  return { ok: false, problem: problem('invalid_parameter', detail, name) };
}

/** Query-parameter validation for the backend: values or problems (never thrown, never a 500). */
import { parseIPv4 } from '../ipv4';
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

function fail(name: string, detail: string): { ok: false; problem: Problem } {
  return { ok: false, problem: problem('invalid_parameter', detail, name) };
}

/**
 * Strict query-string reading shared by the drop-in adapters: each parameter is decoded once, `+` is a space, and a
 * parameter a provider reads once may not be repeated (a repeated credential or coordinate is ambiguous).
 */

/** A parsed query: every value of every parameter, in order. */
export type Query = ReadonlyMap<string, readonly string[]>;

/** Decodes one query component; malformed percent-encoding yields null. */
function decode(part: string): string | null {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** Parses a raw query string (without "?"). Undecodable pairs are kept under the name "" so callers can refuse. */
export function parseQuery(raw: string, caseInsensitive = false): Query {
  const out = new Map<string, string[]>();
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decode(rawName);
    const value = decode(eq < 0 ? '' : pair.slice(eq + 1));
    const key = name === null || value === null ? '' : caseInsensitive ? name.toLowerCase() : name;
    const list = out.get(key) ?? [];
    list.push(value ?? '');
    out.set(key, list);
  }
  return out;
}

/** Outcome of reading one parameter: absent, exactly one value, or repeated (an error the caller renders). */
export type Single = { kind: 'absent' } | { kind: 'one'; value: string } | { kind: 'repeated' };

/** Reads a parameter that must appear at most once. */
export function single(q: Query, name: string): Single {
  const values = q.get(name);
  if (values === undefined || values.length === 0) return { kind: 'absent' };
  if (values.length > 1) return { kind: 'repeated' };
  return { kind: 'one', value: values[0] as string };
}

/** The first value of a parameter, or undefined (for options where repetition does not matter). */
export function first(q: Query, name: string): string | undefined {
  return q.get(name)?.[0];
}

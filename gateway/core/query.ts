/** Strict query-string helpers shared by the gateway and the adapters (repeated parameters stay visible). */

/** Query parameters in order, each name with every value it was given. Null when percent-encoding is malformed. */
export function parseQuery(query: string): Map<string, string[]> | null {
  const out = new Map<string, string[]>();
  if (query === '') return out;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    const name = decodeComponent(rawName);
    const value = decodeComponent(rawValue);
    if (name === null || value === null) return null;
    const list = out.get(name);
    if (list) list.push(value);
    else out.set(name, [value]);
  }
  return out;
}

/** Decode one form-encoded component ('+' is a space); null when malformed. */
export function decodeComponent(s: string): string | null {
  // Most names and values (coordinates, keys) carry neither: no regex, no decoder, no try.
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** The query string without the named parameters (used to keep credentials away from logs and the backend). */
export function withoutParams(query: string, names: readonly string[]): string {
  if (query === '' || names.length === 0) return query;
  return query
    .split('&')
    .filter((part) => {
      const eq = part.indexOf('=');
      const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
      return name === null || !names.includes(name);
    })
    .join('&');
}

/** The one value of a parameter, or why there is not exactly one. */
export type SingleParam = { ok: true; value: string } | { ok: false; reason: 'missing' | 'repeated' };

/** Exactly one value of `name`: missing and repeated parameters are reported, not guessed. */
export function singleParam(params: Map<string, string[]>, name: string): SingleParam {
  const values = params.get(name);
  if (!values || values.length === 0) return { ok: false, reason: 'missing' };
  if (values.length > 1) return { ok: false, reason: 'repeated' };
  return { ok: true, value: values[0] as string };
}

/**
 * Forward lookups (issue 11): the checks every adapter applies to a provider's search request before it becomes the
 * canonical search call (text, limit, countries, language, focus, bounds). Values or a named problem, never thrown.
 */
import type { SearchBounds, SearchCall, SearchParts } from '../types';

/** Longest search text, in characters (our backend's limit, kept for every backend). */
export const MAX_SEARCH_TEXT = 200;
/** The most results one forward lookup may ask for. */
export const MAX_SEARCH_LIMIT = 50;

/** A checked value, or the parameter at fault and why. */
export type Checked<T> = { ok: true; value: T } | { ok: false; parameter: string; detail: string };

const bad = (parameter: string, detail: string): { ok: false; parameter: string; detail: string } => ({
  ok: false,
  parameter,
  detail,
});

/** The search text: trimmed, 1..200 characters, with at least one letter or digit. */
export function searchText(raw: string | undefined, parameter: string): Checked<string> {
  const text = (raw ?? '').trim();
  if (text === '') return bad(parameter, `Parameter "${parameter}" is required.`);
  if (text.length > MAX_SEARCH_TEXT)
    return bad(parameter, `Parameter "${parameter}" must be at most ${MAX_SEARCH_TEXT} characters.`);
  if (!/[\p{L}\p{N}]/u.test(text))
    return bad(parameter, `Parameter "${parameter}" must contain at least one letter or digit.`);
  return { ok: true, value: text };
}

/** A result count 1..max written plainly; `fallback` when absent. Larger values are capped at `max`. */
export function searchLimit(
  raw: string | undefined,
  parameter: string,
  fallback: number,
  max = MAX_SEARCH_LIMIT,
): Checked<number> {
  if (raw === undefined) return { ok: true, value: fallback };
  if (!/^[0-9]{1,4}$/.test(raw) || Number(raw) < 1)
    return bad(parameter, `Parameter "${parameter}" must be a whole number of at least 1.`);
  return { ok: true, value: Math.min(Number(raw), max) };
}

/** A comma-separated list of ISO 3166-1 alpha-2 codes (any case); null when absent. */
export function searchCountries(raw: string | undefined, parameter: string): Checked<string[] | null> {
  if (raw === undefined || raw.trim() === '') return { ok: true, value: null };
  const parts = raw.split(',').map((c) => c.trim().toUpperCase());
  if (parts.length > 50 || !parts.every((c) => /^[A-Z]{2}$/.test(c)))
    return bad(
      parameter,
      `Parameter "${parameter}" must be a comma-separated list of two-letter country codes.`,
    );
  return { ok: true, value: [...new Set(parts)] };
}

/** A language tag or accept-language list (letters, digits, "-", ",", ";", "=", ".", spaces); null when absent. */
export function searchLanguage(raw: string | undefined, parameter: string): Checked<string | null> {
  if (raw === undefined || raw === '') return { ok: true, value: null };
  if (raw.length > 100 || !/^[A-Za-z0-9,;=.\s*_-]+$/.test(raw))
    return bad(parameter, `Parameter "${parameter}" must be a language code such as "de" or "pt-BR".`);
  return { ok: true, value: raw.replace(/_/g, '-') };
}

/** A "lat,lon" (or, with `lonFirst`, "lon,lat") point; null when absent. */
export function searchPoint(
  raw: string | undefined,
  parameter: string,
  lonFirst = false,
): Checked<{ lat: number; lon: number } | null> {
  if (raw === undefined || raw === '') return { ok: true, value: null };
  const m = /^\s*(-?\d{1,3}(?:\.\d+)?)\s*,\s*(-?\d{1,3}(?:\.\d+)?)\s*$/.exec(raw);
  const a = m ? Number(m[1]) : NaN;
  const b = m ? Number(m[2]) : NaN;
  const [lat, lon] = lonFirst ? [b, a] : [a, b];
  if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180))
    return bad(parameter, `Parameter "${parameter}" must be a point "${lonFirst ? 'lon,lat' : 'lat,lon'}".`);
  return { ok: true, value: { lat, lon } };
}

/** Four numbers as a box; `order` names how the provider writes them. Null when absent. */
export function searchBounds(
  raw: string | undefined,
  parameter: string,
  order: 'lonlat' | 'latlon',
  bounded = false,
): Checked<SearchBounds | null> {
  if (raw === undefined || raw === '') return { ok: true, value: null };
  const n = raw.split(',').map((s) => (/^\s*-?\d{1,3}(?:\.\d+)?\s*$/.test(s) ? Number(s) : NaN));
  const [a, b, c, d] = n;
  if (n.length !== 4 || n.some((x) => !Number.isFinite(x)))
    return bad(parameter, `Parameter "${parameter}" must be four comma-separated numbers.`);
  const [lon1, lat1, lon2, lat2] = order === 'lonlat' ? [a, b, c, d] : [b, a, d, c];
  const box = {
    minLon: Math.min(lon1 as number, lon2 as number),
    minLat: Math.min(lat1 as number, lat2 as number),
    maxLon: Math.max(lon1 as number, lon2 as number),
    maxLat: Math.max(lat1 as number, lat2 as number),
    bounded,
  };
  if (
    Math.abs(box.minLat) > 90 ||
    Math.abs(box.maxLat) > 90 ||
    Math.abs(box.minLon) > 180 ||
    Math.abs(box.maxLon) > 180
  )
    return bad(parameter, `Parameter "${parameter}" is outside the world.`);
  return { ok: true, value: box };
}

/** Structured parts joined as the text every backend can search ("street, city, state, postcode, country"). */
export function partsText(p: SearchParts): string {
  return [p.street, p.city, p.county, p.state, p.postcode, p.country]
    .filter((v) => v !== undefined)
    .join(', ');
}

/** A canonical search call with defaults for what the provider did not send. */
export function searchCall(q: string, over: Partial<Omit<SearchCall, 'kind' | 'q'>> = {}): SearchCall {
  return {
    kind: 'search',
    q,
    parts: null,
    limit: 10,
    countries: null,
    language: null,
    focus: null,
    bounds: null,
    ...over,
  };
}

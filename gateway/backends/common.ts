/** Small helpers shared by the connectors: JSON reading, text fields, the distance of a result. */
import type { BackendCall, SearchCall, SearchResult } from '../../adapters/types';
import type { ReverseRecord } from '../../backend/records';
import type { CallHints, Reading } from './types';

export type Json = Record<string, unknown>;

/** The answer's JSON value, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether a value is a JSON object (not an array). */
export function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A non-empty string field (numbers are read as their text: house numbers sometimes come as numbers), else null. */
export function text(o: Json, key: string): string | null {
  const v = o[key];
  if (typeof v === 'string') return v.trim() === '' ? null : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** The first non-null of several text fields. */
export function firstText(o: Json, keys: readonly string[]): string | null {
  for (const k of keys) {
    const v = text(o, k);
    if (v !== null) return v;
  }
  return null;
}

/** A coordinate given as a number or a decimal string (Nominatim sends strings), else null. */
export function coordinate(v: unknown, max: number): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && Math.abs(n) <= max ? n : null;
}

/** Great-circle distance in km, rounded to 3 decimals (the geogate record's `distanceKm`). */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  const km = 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(a)));
  return Math.round(km * 1000) / 1000;
}

/** A decimal number without exponent notation (backends parse strictly). */
export function decimal(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** The query point of a reverse call. */
export function queryPoint(call: BackendCall): { lat: number; lon: number } {
  if (call.kind === 'search') return call.focus ?? { lat: 0, lon: 0 };
  return call.kind === 'reverse' ? { lat: call.lat, lon: call.lon } : { lat: 0, lon: 0 };
}

/** The reading of a status other than 200 that every kind shares: 400 rejected, 404 no result, else failed. */
export function statusReading(status: number): Reading {
  if (status === 404) return { kind: 'no_result' };
  return status === 400 ? { kind: 'rejected' } : { kind: 'failed' };
}

/** "Data © OpenStreetMap contributors, ODbL 1.0" as Nominatim words it (its answers' `licence`). */
export const OSM_NOTICE = 'Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright';

/** ISO 3166-1 alpha-2 upper case, or null when the value is not a two-letter code. */
export function alpha2(v: string | null): string | null {
  return v !== null && /^[A-Za-z]{2}$/.test(v) ? v.toUpperCase() : null;
}

/** A region code from an ISO 3166-2 code ("US-NY" → "NY"), or null. */
export function subdivisionCode(v: string | null): string | null {
  const m = v === null ? null : /^[A-Z]{2}-([A-Z0-9]{1,3})$/.exec(v);
  return m ? (m[1] as string) : null;
}

/** Parts joined with ", ", skipping nulls and repeats (a display name built from address parts). */
export function joinParts(parts: readonly (string | null)[]): string {
  const out: string[] = [];
  for (const p of parts) if (p !== null && !out.includes(p)) out.push(p);
  return out.join(', ');
}

/** A search result from a place record: its own point as `query`, no distance (there is no query point). */
export function searchResult(
  record: ReverseRecord,
  relevance: number | null,
  bbox: [number, number, number, number] | null,
): SearchResult {
  const own =
    record.lat !== null && record.lon !== null ? { lat: record.lat, lon: record.lon } : record.query;
  return { ...record, query: own, distanceKm: null, relevance, bbox };
}

/** A relevance 0..1 rounded to 4 decimals, or null when the value is not a number in range. */
export function relevanceOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 1 ? Math.round(n * 1e4) / 1e4 : null;
}

/** A [minLon, minLat, maxLon, maxLat] box from four numbers in that order, or null when one is not a coordinate. */
export function bboxOf(
  minLon: unknown,
  minLat: unknown,
  maxLon: unknown,
  maxLat: unknown,
): [number, number, number, number] | null {
  const w = coordinate(minLon, 180);
  const s = coordinate(minLat, 90);
  const e = coordinate(maxLon, 180);
  const n = coordinate(maxLat, 90);
  return w === null || s === null || e === null || n === null ? null : [w, s, e, n];
}

/** The language of a search: the call's own, else the client's accept-language hint. */
export function searchLanguage(call: SearchCall, hints: CallHints): string | null {
  return call.language ?? hints.language ?? null;
}

/** The first language code of a language list ("de-CH,de;q=0.9" → "de"), lower case; null when none. */
export function firstLanguage(lang: string | null): string | null {
  const m = lang === null ? null : /^[A-Za-z]{2,3}/.exec(lang.trim());
  return m ? m[0].toLowerCase() : null;
}

/** A query string from pairs, each value percent-encoded (RFC 3986: spaces as %20). */
export function queryString(
  pairs: readonly (readonly [string, string | number | null | undefined])[],
): string {
  const out: string[] = [];
  for (const [k, v] of pairs)
    if (v !== null && v !== undefined) out.push(`${k}=${encodeURIComponent(String(v))}`);
  return out.join('&');
}

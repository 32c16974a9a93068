/** Small derivations from a backend ReverseRecord shared by several provider renderers. */
import type { ReverseRecord } from '../../backend/records';

/** The result's own point: the locality's coordinates, or the query point when there is no locality. */
export function resultPoint(record: ReverseRecord): { lat: number; lon: number } {
  return record.lat !== null && record.lon !== null ? { lat: record.lat, lon: record.lon } : record.query;
}

/** A stable positive integer identifying the place (FNV-1a over its name and point), for providers' place ids. */
export function placeNumber(record: ReverseRecord): number {
  const p = resultPoint(record);
  const text = `${record.displayName}|${p.lat}|${p.lon}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Distance from the query to the result in metres (integer), or null. */
export function distanceMetres(record: ReverseRecord): number | null {
  return record.distanceKm === null ? null : Math.round(record.distanceKm * 1000);
}

/** A short region code when the backend's admin-1 code is a letter code (US "NY"); GeoNames digits are not shown. */
export function regionLetters(record: ReverseRecord): string | null {
  return record.regionCode !== null && /^[A-Z]{1,3}$/.test(record.regionCode) ? record.regionCode : null;
}

/** A bounding box of about ±0.01° around the result point: [south, north, west, east]. */
export function smallBox(record: ReverseRecord): [number, number, number, number] {
  const p = resultPoint(record);
  const r = (n: number) => Math.round(n * 1e7) / 1e7;
  return [r(p.lat - 0.01), r(p.lat + 0.01), r(p.lon - 0.01), r(p.lon + 0.01)];
}

/** Drops the keys whose value is null or undefined (providers omit unknown fields rather than sending null). */
export function compact<T extends Record<string, unknown>>(obj: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(obj))
    if (v !== null && v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

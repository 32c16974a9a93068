/**
 * Strict coordinate parsing shared by the drop-in adapters: plain decimal numbers only (no hex, no exponent, no
 * "Infinity", no empty string), latitude within [-90, 90] and longitude within [-180, 180].
 */

/** A parsed point, or the name of the offending part with a public message. */
export type PointResult =
  { ok: true; lat: number; lon: number } | { ok: false; parameter: string; detail: string };

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** Parses one decimal number written the way geocoding clients write coordinates; null when it is not one. */
export function parseDecimal(text: string): number | null {
  const t = text.trim();
  if (!DECIMAL.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** Validates a latitude and a longitude given as text; names the parameter that is wrong. */
export function parseLatLon(
  latText: string | undefined,
  lonText: string | undefined,
  names: { lat: string; lon: string },
): PointResult {
  if (latText === undefined || latText.trim() === '') {
    return { ok: false, parameter: names.lat, detail: `${names.lat} is required` };
  }
  if (lonText === undefined || lonText.trim() === '') {
    return { ok: false, parameter: names.lon, detail: `${names.lon} is required` };
  }
  const lat = parseDecimal(latText);
  if (lat === null || lat < -90 || lat > 90) {
    return { ok: false, parameter: names.lat, detail: `${names.lat} must be a number between -90 and 90` };
  }
  const lon = parseDecimal(lonText);
  if (lon === null || lon < -180 || lon > 180) {
    return { ok: false, parameter: names.lon, detail: `${names.lon} must be a number between -180 and 180` };
  }
  return { ok: true, lat, lon };
}

/**
 * Parses a "first,second" pair (comma, optional spaces around it; or whitespace alone when `spaceAllowed`), returning
 * the two texts. A raw "%2C" is accepted as the comma, since clients differ on encoding it (providers.md 2.10).
 */
export function splitPair(text: string, spaceAllowed = false): [string, string] | null {
  const t = text.replace(/%2c/gi, ',').trim();
  const comma = t.split(',');
  if (comma.length === 2) return [comma[0] as string, comma[1] as string];
  if (comma.length === 1 && spaceAllowed) {
    const parts = t.split(/\s+/);
    if (parts.length === 2) return [parts[0] as string, parts[1] as string];
  }
  return null;
}

/** Parses "lat,lon" (provider order latitude first) into a point, naming `parameter` on failure. */
export function parseLatLonPair(
  text: string | undefined,
  parameter: string,
  spaceAllowed = false,
): PointResult {
  if (text === undefined || text.trim() === '') {
    return { ok: false, parameter, detail: `${parameter} is required` };
  }
  const pair = splitPair(text, spaceAllowed);
  if (pair === null) return { ok: false, parameter, detail: `${parameter} must be "latitude,longitude"` };
  const point = parseLatLon(pair[0], pair[1], { lat: 'latitude', lon: 'longitude' });
  return point.ok ? point : { ok: false, parameter, detail: `${parameter}: ${point.detail}` };
}

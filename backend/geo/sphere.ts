/** Sphere helpers: unit vectors and great-circle distances (mean Earth radius, IUGG). */

/** Mean Earth radius in km (IUGG R1). */
export const EARTH_RADIUS_KM = 6371.0088;

const RAD = Math.PI / 180;

/** Writes the unit vector of (lat, lon) in degrees into out[at..at+2]. */
export function writeUnitVector(lat: number, lon: number, out: Float64Array, at: number): void {
  const phi = lat * RAD;
  const lambda = lon * RAD;
  const c = Math.cos(phi);
  out[at] = c * Math.cos(lambda);
  out[at + 1] = c * Math.sin(lambda);
  out[at + 2] = Math.sin(phi);
}

/** Great-circle distance in km for a squared chord length between two unit vectors. */
export function chord2ToKm(chord2: number): number {
  const half = Math.sqrt(chord2) / 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(half > 1 ? 1 : half);
}

/** Haversine great-circle distance in km between two points in degrees. */
export function haversineKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

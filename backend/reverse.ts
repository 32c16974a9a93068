/** Reverse geocoding: country from the raster (country-coder at borders), nearest place in that country. */
import tzlookup from '@photostructure/tz-lookup';
import { REVERSE_ATTRIBUTION } from './attribution';
import { allCountryCodes, countryCodeAt, countryName } from './geodata/countries';
import { gridCell } from './geodata/country-grid';
import { BORDER_CELL, type Geodata } from './geodata/model';
import { KdSearch, type KdTree, DEFAULT_LEAF_SIZE } from './geo/kdtree';
import { chord2ToKm, writeUnitVector } from './geo/sphere';
import type { ReverseRecord } from './records';

/** Answers `GET /reverse` from the compact geodata. */
export class ReverseGeocoder {
  private readonly countryTree: KdTree;
  private readonly globalTree: KdTree;
  private readonly search = new KdSearch();
  private readonly query = new Float64Array(3);
  private readonly countryIndex = new Map<string, number>();
  private readonly countries: string[];
  private readonly countryNames: (string | null)[];

  constructor(private readonly data: Geodata) {
    const { places } = data;
    const n = places.lat.length;
    const xyz = new Float64Array(n * 3);
    for (let i = 0; i < n; i++) unitOf(places.lat, places.lon, i, xyz, i * 3);
    const globalXyz = new Float64Array(n * 3);
    for (let i = 0; i < n; i++)
      unitOf(places.lat, places.lon, places.globalIds[i] as number, globalXyz, i * 3);
    this.countryTree = { xyz, axis: places.countryAxis, leafSize: DEFAULT_LEAF_SIZE };
    this.globalTree = { xyz: globalXyz, axis: places.globalAxis, leafSize: DEFAULT_LEAF_SIZE };
    // Codes country-coder may answer at border cells that the tables lack get an index with no places.
    this.countries = data.strings.countries.toArray() as string[];
    for (const code of allCountryCodes()) if (!this.countries.includes(code)) this.countries.push(code);
    this.countries.forEach((code, i) => this.countryIndex.set(code, i));
    this.countryNames = this.countries.map(countryName);
  }

  /** ISO code of a country index (null when out of range). */
  countryCodeOf(c: number): string | null {
    return this.countries[c] ?? null;
  }

  /** English name of a country index (null when unknown). */
  countryNameOf(c: number): string | null {
    return this.countryNames[c] ?? null;
  }

  /** Index of an ISO alpha-2 code (upper case), -1 when neither the places nor country-coder know it. */
  countryIndexOf(code: string): number {
    return this.countryIndex.get(code) ?? -1;
  }

  /** Number of country indexes (the size of a per-country table). */
  get countryCount(): number {
    return this.countries.length;
  }

  /** Country index of a point (-1 over open sea). */
  countryAt(lat: number, lon: number): number {
    const v = this.data.grid.cells[gridCell(this.data.grid, lat, lon)] as number;
    if (v !== BORDER_CELL) return v - 1;
    const code = countryCodeAt(lon, lat);
    return code === null ? -1 : (this.countryIndex.get(code) ?? -1);
  }

  /** Squared chord to the place of the last `nearest` call. */
  get lastChord2(): number {
    return this.search.chord2;
  }

  /**
   * Index of the nearest place within country c (anywhere when c is -1 or has no places), -1 when there are no
   * places at all. Allocates nothing; the distance is in `lastChord2`.
   */
  nearest(lat: number, lon: number, c: number): number {
    const q = this.query;
    writeUnitVector(lat, lon, q, 0);
    const x = q[0] as number;
    const y = q[1] as number;
    const z = q[2] as number;
    const start = this.data.places.countryStart;
    const lo = c >= 0 && c + 1 < start.length ? (start[c] as number) : 0;
    const hi = c >= 0 && c + 1 < start.length ? (start[c + 1] as number) : 0;
    if (hi > lo) return this.search.nearest(this.countryTree, lo, hi, x, y, z);
    const pos = this.search.nearest(this.globalTree, 0, this.data.places.globalIds.length, x, y, z);
    return pos < 0 ? -1 : (this.data.places.globalIds[pos] as number);
  }

  /** The full record of a point; lat/lon must be validated (finite, in range). */
  lookup(lat: number, lon: number): ReverseRecord {
    const c = this.countryAt(lat, lon);
    const place = this.nearest(lat, lon, c);
    const chord2 = this.search.chord2;
    const countryCode = c >= 0 ? (this.countries[c] as string) : null;
    const country = c >= 0 ? (this.countryNames[c] ?? null) : null;
    const timezone = tzlookup(lat, lon);
    if (place < 0) return emptyRecord(lat, lon, countryCode, country, timezone);
    const { places, strings } = this.data;
    const a1 = places.admin1[place] as number;
    const a2 = places.admin2[place] as number;
    const region = strings.admin1Names.get(a1);
    const county = strings.admin2Names.get(a2);
    const locality = strings.names.get(place) as string;
    return {
      query: { lat, lon },
      countryCode,
      country,
      region,
      regionCode: strings.admin1Codes.get(a1),
      county,
      locality,
      postcode: null,
      distanceKm: Math.round(chord2ToKm(chord2) * 1000) / 1000,
      displayName: displayName(locality, county, region, country),
      lat: (places.lat[place] as number) / 1e5,
      lon: (places.lon[place] as number) / 1e5,
      timezone,
      attribution: REVERSE_ATTRIBUTION,
    };
  }
}

function unitOf(lat: Int32Array, lon: Int32Array, i: number, out: Float64Array, at: number): void {
  writeUnitVector((lat[i] as number) / 1e5, (lon[i] as number) / 1e5, out, at);
}

/** Joins the non-empty parts with ", ", dropping repeats ("New York, New York" → "New York"). */
export function displayName(...parts: (string | null)[]): string {
  const kept: string[] = [];
  for (const part of parts) if (part !== null && part !== '' && !kept.includes(part)) kept.push(part);
  return kept.join(', ');
}

function emptyRecord(
  lat: number,
  lon: number,
  countryCode: string | null,
  country: string | null,
  timezone: string,
): ReverseRecord {
  return {
    query: { lat, lon },
    countryCode,
    country,
    region: null,
    regionCode: null,
    county: null,
    locality: null,
    postcode: null,
    distanceKm: null,
    displayName: country ?? '',
    lat: null,
    lon: null,
    timezone,
    attribution: REVERSE_ATTRIBUTION,
  };
}

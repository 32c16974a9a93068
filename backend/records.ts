/**
 * The backend's answer records: the JSON bodies of `GET /reverse`, `GET /search` and `GET /ipv4`.
 * This file is the contract between the backend and the adapters; it imports nothing.
 */

/** Body of `GET /reverse?lat=&lon=` (200). Nullable fields are null when the data has no value. */
export interface ReverseRecord {
  query: { lat: number; lon: number };
  /** ISO 3166-1 alpha-2 at territory level (PR, HK, ...); null over open sea. */
  countryCode: string | null;
  /** English country name (country-coder nameEn); null over open sea. */
  country: string | null;
  /** GeoNames admin-1 name of the locality, e.g. "Île-de-France". */
  region: string | null;
  /** GeoNames admin-1 code, e.g. "11" or "NY" (not ISO 3166-2). */
  regionCode: string | null;
  /** GeoNames admin-2 name, often null. */
  county: string | null;
  /** Nearest place within the point's country (nearest anywhere over open sea). */
  locality: string | null;
  /** Postcode when known; null in v1 (no global open postcode data). */
  postcode: string | null;
  /** Great-circle distance from the query to the locality, km, rounded to 3 decimals. */
  distanceKm: number | null;
  /** e.g. "Times Square, New York County, New York, United States of America". */
  displayName: string;
  /** The locality's coordinates (null when no locality). */
  lat: number | null;
  lon: number | null;
  /** IANA timezone of the query point. */
  timezone: string | null;
  /** Attribution text required by the data licences. */
  attribution: string;
  /**
   * Street-level fields, filled by the gateway's connectors for backends that have them (Nominatim, Photon, Pelias:
   * D25); this backend never sends them, so every one is optional and absent means "not known".
   */
  street?: string | null;
  houseNumber?: string | null;
  /** A part of the locality (suburb, district, neighbourhood). */
  suburb?: string | null;
  /** What the answer describes; absent: `locality` (this backend answers the nearest place). */
  precision?: Precision;
  /** The licence of the answer's data as its backend names it (e.g. "ODbL-1.0"); absent when not stated. */
  licence?: string | null;
}

/** How precise a reverse answer is: a house (address), a street, a place, an admin-1 region, or only a country. */
export type Precision = 'address' | 'street' | 'locality' | 'region' | 'country';

/** The place fields of a record: a ReverseRecord without its query (shared by reverse and search answers). */
export type PlaceRecord = Omit<ReverseRecord, 'query'>;

/**
 * One result of `GET /search`: the fields of a ReverseRecord for the place (distanceKm null: there is no query point;
 * timezone of the place), plus how it matched. Ranked by `score` (docs/backend.md, "Ranking").
 */
export interface SearchRecord extends PlaceRecord {
  /** match (2 exact, 1 prefix) + 0.1 for the place's own name + log10(1 + population) / 10, rounded to 4 decimals. */
  score: number;
  /** Whether the whole normalised name matched, or only its start. */
  match: 'exact' | 'prefix';
  /** Whether the matched name is an alternate name (another language, a former or short name). */
  matchedAlternate: boolean;
  /** GeoNames population; null when unknown. */
  population: number | null;
}

/** Body of `GET /search?q=` (200): the best places first; an empty list when nothing matches. */
export interface SearchAnswer {
  query: {
    q: string;
    /** The normalised form the names were matched against. */
    normalized: string;
    /** The country filter (upper case), null when absent. */
    countrycodes: string[] | null;
    limit: number;
  };
  results: SearchRecord[];
  attribution: string;
}

/** Body of `GET /ipv4?ip=` (200). */
export interface IpRecord {
  ip: string;
  countryCode: string | null;
  country: string | null;
  region: string | null;
  city: string | null;
  /** Rounded to 4 decimals. */
  lat: number | null;
  lon: number | null;
  timezone: string | null;
  asn: number | null;
  org: string | null;
  attribution: string;
}

/** Body of every backend error (RFC 9457 problem+json), e.g. status 400 code invalid_parameter. */
export interface BackendProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: 'invalid_parameter' | 'not_found' | 'method_not_allowed' | 'internal';
  /** The offending query parameter, for invalid_parameter. */
  parameter?: string;
}

/** Shared fixtures for the adapter table tests: realistic backend records and a request builder. */
import type { IpRecord, ReverseRecord } from '../../../backend/records';
import type { AdapterRequest, ParseResult } from '../../../adapters/types';

/** A point near the Eiffel Tower, as the backend answers it. */
export const PARIS: ReverseRecord = {
  query: { lat: 48.8584, lon: 2.2945 },
  countryCode: 'FR',
  country: 'France',
  region: 'Île-de-France',
  regionCode: '11',
  county: 'Paris',
  locality: 'Paris',
  postcode: null,
  distanceKm: 4.213,
  displayName: 'Paris, Paris, Île-de-France, France',
  lat: 48.85341,
  lon: 2.3488,
  timezone: 'Europe/Paris',
  attribution: 'Place data © GeoNames (CC BY 4.0); borders © country-coder',
};

/** A point in Manhattan, with a letter region code and a postcode. */
export const NEW_YORK: ReverseRecord = {
  query: { lat: 40.758, lon: -73.9855 },
  countryCode: 'US',
  country: 'United States',
  region: 'New York',
  regionCode: 'NY',
  county: 'New York County',
  locality: 'Manhattan',
  postcode: '10036',
  distanceKm: 1.2,
  displayName: 'Manhattan, New York County, New York, United States',
  lat: 40.78343,
  lon: -73.96625,
  timezone: 'America/New_York',
  attribution: 'Place data © GeoNames (CC BY 4.0)',
};

/** Open sea: no country, nearest locality anywhere. */
export const OPEN_SEA: ReverseRecord = {
  ...PARIS,
  query: { lat: 0, lon: -30 },
  countryCode: null,
  country: null,
  region: null,
  regionCode: null,
  county: null,
  locality: null,
  distanceKm: null,
  displayName: 'Atlantic Ocean',
  lat: null,
  lon: null,
  timezone: 'Etc/GMT+2',
};

/** 8.8.8.8 as the backend answers it. */
export const GOOGLE_DNS: IpRecord = {
  ip: '8.8.8.8',
  countryCode: 'US',
  country: 'United States',
  region: 'California',
  city: 'Mountain View',
  lat: 37.4056,
  lon: -122.0775,
  timezone: 'America/Los_Angeles',
  asn: 15169,
  org: 'Google LLC',
  attribution: 'IP data © DB-IP (CC BY 4.0)',
};

/** A secret-looking key used to prove credentials never leak into rendered output. */
export const SECRET = 'gk_SECRET_key_never_rendered_0123456789';

/** Builds an adapter request (GET by default). */
export function req(
  path: string,
  query = '',
  headers: Record<string, string> = {},
  method = 'GET',
): AdapterRequest {
  return { method, path, query, headers };
}

/** Unwraps a successful parse or fails the test with what came back. */
export function parsed<S>(result: ParseResult<S>): { call: unknown; state: S } {
  if (result === null || !result.ok)
    throw new Error(`expected a parsed request, got ${JSON.stringify(result)}`);
  return result.request;
}

/** Unwraps a refusal (ok:false) or fails the test. */
export function refused<S>(result: ParseResult<S>): { code: string; parameter: string | undefined } {
  if (result === null || result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return { code: result.code, parameter: result.facts?.parameter };
}

/** Loosely typed JSON, so table tests can walk provider bodies without restating each provider's types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

/** Parses a JSON body. */
export function body(res: { body: string }): Loose {
  return JSON.parse(res.body) as Loose;
}

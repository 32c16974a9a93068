/**
 * The bodies of the bench's replay backend and connector measurement: our backend's record for the bench point, and
 * the third-party answers the tests use too (bench/fixtures/connectors, recorded from each project's documentation,
 * each naming its source): Nominatim's Bologna house for reverse, its London search and its status; Photon's Olympic
 * Stadium; Pelias's 30 West 26th Street.
 */
import type { ReverseRecord } from '../../backend/records';
import { NOMINATIM_HOUSE, NOMINATIM_STATUS as NOMINATIM_STATUS_BODY } from '../fixtures/connectors/nominatim';
import { PELIAS_ADDRESS } from '../fixtures/connectors/pelias';
import { PHOTON_HOUSE } from '../fixtures/connectors/photon';
import { NOMINATIM_SEARCH as NOMINATIM_SEARCH_BODY } from '../fixtures/connectors/search';

export const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** Our backend's record for the bench point (the Eiffel Tower's nearest place, backend/records.ts). */
const BENCH_POINT: ReverseRecord = {
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
  attribution: 'Place data © GeoNames (CC BY 4.0)',
};

export const GEOGATE = json(BENCH_POINT);
export const NOMINATIM_REVERSE = json(NOMINATIM_HOUSE.body);
export const NOMINATIM_SEARCH = json(NOMINATIM_SEARCH_BODY);
export const NOMINATIM_STATUS = json(NOMINATIM_STATUS_BODY);
export const PHOTON_REVERSE = json(PHOTON_HOUSE.body);
export const PELIAS_REVERSE = json(PELIAS_ADDRESS.body);

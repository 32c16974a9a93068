/**
 * Connector `nominatim` (D25): `/reverse?format=jsonv2&lat&lon&addressdetails=1` (zoom and accept-language passed on
 * where the client sent them); its `address` object becomes the record; `{"error": "Unable to geocode"}` is "no
 * result". Field names: Nominatim's docs/api/Output.md ("addressdetails") and docs/api/Reverse.md.
 */
import type { BackendCall } from '../../adapters/types';
import type { Precision, ReverseRecord } from '../../backend/records';
import {
  alpha2,
  coordinate,
  decimal,
  distanceKm,
  firstText,
  isObject,
  OSM_NOTICE,
  parseJson,
  queryPoint,
  statusReading,
  subdivisionCode,
  text,
  type Json,
} from './common';
import type { CallHints, Connector, Reading } from './types';

/** Address keys of a place, most specific first (Output.md lists them). */
const LOCALITY = ['city', 'town', 'village', 'hamlet', 'municipality', 'isolated_dwelling', 'croft'];
const SUBURB = ['suburb', 'city_district', 'district', 'borough', 'quarter', 'neighbourhood', 'subdivision'];
const STREET = ['road', 'pedestrian', 'footway', 'path', 'cycleway', 'square', 'place'];
const REGION = ['state', 'region', 'province'];
const COUNTY = ['county', 'state_district'];

/** The request of a reverse call (IP lookups are not a Nominatim API: the host's ipBackend answers them). */
function request(call: BackendCall, hints: CallHints): string {
  if (call.kind !== 'reverse') return '/reverse?format=jsonv2';
  let q = `/reverse?format=jsonv2&lat=${decimal(call.lat)}&lon=${decimal(call.lon)}&addressdetails=1`;
  if (hints.zoom !== undefined) q += `&zoom=${hints.zoom}`;
  if (hints.language !== undefined) q += `&accept-language=${encodeURIComponent(hints.language)}`;
  return q;
}

/** What the place is, from the parts its address has. */
function precisionOf(a: Json): Precision {
  if (text(a, 'house_number') !== null) return 'address';
  if (firstText(a, STREET) !== null) return 'street';
  if (firstText(a, LOCALITY) !== null || firstText(a, SUBURB) !== null) return 'locality';
  if (firstText(a, REGION) !== null || firstText(a, COUNTY) !== null) return 'region';
  return 'country';
}

/** A jsonv2 place as the gateway's record, or why it cannot be read. */
export function nominatimRecord(call: BackendCall, j: Json): ReverseRecord | string {
  const lat = coordinate(j['lat'], 90);
  const lon = coordinate(j['lon'], 180);
  const display = text(j, 'display_name');
  if (lat === null || lon === null || display === null) return 'no lat, lon or display_name';
  const a = isObject(j['address']) ? j['address'] : {};
  const q = queryPoint(call);
  return {
    query: q,
    countryCode: alpha2(text(a, 'country_code')),
    country: text(a, 'country'),
    region: firstText(a, REGION),
    regionCode: subdivisionCode(text(a, 'ISO3166-2-lvl4')),
    county: firstText(a, COUNTY),
    locality: firstText(a, LOCALITY),
    postcode: text(a, 'postcode'),
    distanceKm: distanceKm(q.lat, q.lon, lat, lon),
    displayName: display,
    lat,
    lon,
    timezone: null,
    attribution: text(j, 'licence') ?? OSM_NOTICE,
    street: firstText(a, STREET),
    houseNumber: text(a, 'house_number'),
    suburb: firstText(a, SUBURB),
    precision: precisionOf(a),
    licence: 'ODbL-1.0',
  };
}

/** Read a jsonv2 reverse answer. */
function read(call: BackendCall, status: number, body: Buffer): Reading {
  if (status !== 200) return statusReading(status);
  const j = parseJson(body);
  if (!isObject(j)) return { kind: 'unreadable', reason: 'not a JSON object' };
  // `{"error": "Unable to geocode"}`: nothing at this point (an answer, charged). An error object is not an answer.
  if ('error' in j) {
    return typeof j['error'] === 'string'
      ? { kind: 'no_result' }
      : { kind: 'unreadable', reason: 'an error object in a 200' };
  }
  if (call.kind !== 'reverse') return { kind: 'unreadable', reason: 'Nominatim has no IP lookup' };
  const record = nominatimRecord(call, j);
  return typeof record === 'string' ? { kind: 'unreadable', reason: record } : { kind: 'record', record };
}

/** Nominatim (v4/v5, the Python frontend and the PHP one). */
export const nominatimConnector: Connector = {
  kind: 'nominatim',
  ip: false,
  reverse: true,
  request,
  read,
  health: '/status?format=json',
  healthy: (status, body) => {
    if (status !== 200) return false;
    const j = parseJson(body);
    return isObject(j) && j['status'] === 0;
  },
};

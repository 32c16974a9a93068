/**
 * Connector `nominatim` (D25): `/reverse?format=jsonv2&lat&lon&addressdetails=1` (zoom and accept-language passed on
 * where the client sent them); its `address` object becomes the record; `{"error": "Unable to geocode"}` is "no
 * result". Field names: Nominatim's docs/api/Output.md ("addressdetails") and docs/api/Reverse.md.
 */
import type { BackendCall, SearchCall, SearchResult } from '../../adapters/types';
import type { Precision, ReverseRecord } from '../../backend/records';
import {
  alpha2,
  bboxOf,
  coordinate,
  decimal,
  distanceKm,
  firstText,
  isObject,
  OSM_NOTICE,
  parseJson,
  queryPoint,
  queryString,
  relevanceOf,
  searchLanguage,
  searchResult,
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

/** Nominatim's most results per search (docs/api/Search.md: `limit`, at most 40). */
const MAX_LIMIT = 40;

/**
 * `/search?format=jsonv2&addressdetails=1`: free text `q`, or the structured parameters (street, city, county, state,
 * postalcode, country; Search.md says they cannot be combined with q) when the client sent parts; limit, countrycodes,
 * accept-language, viewbox (`x1,y1,x2,y2`) and bounded.
 */
export function nominatimSearchPath(call: SearchCall, hints: CallHints): string {
  const p = call.parts;
  const text: [string, string | null | undefined][] =
    p === null
      ? [['q', call.q]]
      : [
          ['street', p.street],
          ['city', p.city],
          ['county', p.county],
          ['state', p.state],
          ['postalcode', p.postcode],
          ['country', p.country],
        ];
  const b = call.bounds;
  return `/search?${queryString([
    ['format', 'jsonv2'],
    ['addressdetails', 1],
    ...text,
    ['limit', Math.min(call.limit, MAX_LIMIT)],
    ['countrycodes', call.countries === null ? null : call.countries.join(',').toLowerCase()],
    ['accept-language', searchLanguage(call, hints)],
    ['viewbox', b === null ? null : `${b.minLon},${b.maxLat},${b.maxLon},${b.minLat}`],
    ['bounded', b !== null && b.bounded ? 1 : null],
  ])}`;
}

/** The request of a call (IP lookups are not a Nominatim API: the host's ipBackend answers them). */
function request(call: BackendCall, hints: CallHints): string {
  if (call.kind === 'search') return nominatimSearchPath(call, hints);
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

/** A jsonv2 search answer: a list of places (empty: nothing matched), `importance` and `boundingbox` read. */
function readSearch(call: BackendCall, j: unknown): Reading {
  if (!Array.isArray(j)) return { kind: 'unreadable', reason: 'a search answer is a list' };
  const results: SearchResult[] = [];
  for (const place of j as unknown[]) {
    if (!isObject(place)) return { kind: 'unreadable', reason: 'a result is not an object' };
    const record = nominatimRecord(call, place);
    if (typeof record === 'string') return { kind: 'unreadable', reason: record };
    // boundingbox: [min lat, max lat, min lon, max lon], as strings (Output.md).
    const bb = place['boundingbox'];
    const bbox = Array.isArray(bb) ? bboxOf(bb[2], bb[0], bb[3], bb[1]) : null;
    results.push(searchResult(record, relevanceOf(place['importance']), bbox));
  }
  return { kind: 'results', answer: { results, attribution: results[0]?.attribution ?? OSM_NOTICE } };
}

/** Read a jsonv2 answer. */
function read(call: BackendCall, status: number, body: Buffer): Reading {
  if (status !== 200) return statusReading(status);
  const j = parseJson(body);
  if (call.kind === 'search') return readSearch(call, j);
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
  search: true,
  request,
  read,
  health: '/status?format=json',
  healthy: (status, body) => {
    if (status !== 200) return false;
    const j = parseJson(body);
    return isObject(j) && j['status'] === 0;
  },
};

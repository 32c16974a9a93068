/**
 * Nominatim's `/search` (issue 11), shared by the Nominatim and LocationIQ hosts: free text `q` or the structured
 * parameters (street, city, county, state, country, postalcode; Search.md), limit, countrycodes, accept-language,
 * viewbox/bounded, addressdetails and format (json, jsonv2, geojson, geocodejson; xml is not served for searches).
 * The answer is Nominatim's list of places, best first; nothing matched is `[]` (an empty FeatureCollection).
 */
import type { ParseResult, SearchCall, SearchParts, SearchResult, SearchResults } from '../types';
import type { AdapterResponse } from '../types';
import { placeNumber } from './place';
import { json } from './respond';
import { once, refuse } from './parse';
import type { Query } from './query';
import { houseNumberOf, streetOf, suburbOf } from './street';
import {
  partsText,
  searchBounds,
  searchCall,
  searchCountries,
  searchLanguage,
  searchLimit,
  searchText,
  type Checked,
} from './search';

/** The formats a search is answered in. */
export const NOMINATIM_SEARCH_FORMATS = ['json', 'jsonv2', 'geojson', 'geocodejson'] as const;
export type NominatimSearchFormat = (typeof NOMINATIM_SEARCH_FORMATS)[number];

/** How a search answer is rendered. */
export interface NominatimSearchView {
  search: true;
  format: NominatimSearchFormat;
  addressdetails: boolean;
}

const STRUCTURED: readonly [keyof SearchParts, string][] = [
  ['street', 'street'],
  ['city', 'city'],
  ['county', 'county'],
  ['state', 'state'],
  ['country', 'country'],
  ['postcode', 'postalcode'],
];
const NAMES = [
  'q',
  'format',
  'limit',
  'countrycodes',
  'accept-language',
  'viewbox',
  'bounded',
  'addressdetails',
];

const refused = (c: { parameter: string; detail: string }): ParseResult<never> =>
  refuse('invalid_parameter', c.parameter, c.detail);

/** A Nominatim search request as the canonical call, or its refusal; `defaultFormat` when none is given. */
export function readNominatimSearch(
  q: Query,
  defaultFormat: NominatimSearchFormat,
): { call: SearchCall; view: NominatimSearchView } | ParseResult<never> {
  const v: Record<string, string | undefined> = {};
  for (const name of [...NAMES, ...STRUCTURED.map(([, p]) => p)]) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const format = v['format'] ?? defaultFormat;
  const known = NOMINATIM_SEARCH_FORMATS.find((f) => f === format);
  if (known === undefined)
    return refuse(
      'invalid_parameter',
      'format',
      `format must be one of: ${NOMINATIM_SEARCH_FORMATS.join(', ')}`,
    );
  const parts: SearchParts = {};
  for (const [key, param] of STRUCTURED) {
    const value = v[param]?.trim();
    if (value) parts[key] = value;
  }
  const structured = Object.keys(parts).length > 0;
  if (structured && v['q'] !== undefined)
    return refuse('invalid_parameter', 'q', 'Structured query parameters cannot be used together with q.');
  const text = searchText(structured ? partsText(parts) : v['q'], 'q');
  if (!text.ok) return refused(text);
  const limit = searchLimit(v['limit'], 'limit', 10, 40);
  const countries = searchCountries(v['countrycodes'], 'countrycodes');
  const language = searchLanguage(v['accept-language'], 'accept-language');
  const bounded = v['bounded'] ?? '0';
  if (bounded !== '0' && bounded !== '1')
    return refuse('invalid_parameter', 'bounded', 'bounded must be 0 or 1');
  const bounds = searchBounds(v['viewbox'], 'viewbox', 'lonlat', bounded === '1');
  const details = v['addressdetails'] ?? '0';
  if (details !== '0' && details !== '1')
    return refuse('invalid_parameter', 'addressdetails', 'addressdetails must be 0 or 1');
  for (const c of [limit, countries, language, bounds] as Checked<unknown>[]) if (!c.ok) return refused(c);
  const call = searchCall(text.value, {
    parts: structured ? parts : null,
    limit: (limit as { value: number }).value,
    countries: (countries as { value: string[] | null }).value,
    language: (language as { value: string | null }).value,
    bounds: (bounds as { value: SearchCall['bounds'] }).value,
  });
  return { call, view: { search: true, format: known, addressdetails: details === '1' } };
}

/** The place's kind in Nominatim's words, from what the result is. */
function placeType(r: SearchResult): { category: string; type: string; rank: number } {
  switch (r.precision) {
    case 'address':
      return { category: 'place', type: 'house', rank: 30 };
    case 'street':
      return { category: 'highway', type: 'road', rank: 26 };
    case 'region':
      return { category: 'boundary', type: 'administrative', rank: 8 };
    case 'country':
      return { category: 'place', type: 'country', rank: 4 };
    default:
      return { category: 'place', type: 'city', rank: 16 };
  }
}

/** Nominatim's address keys (Output.md "addressdetails") of a result. */
function addressOf(r: SearchResult): Record<string, string> {
  const a: Record<string, string> = {};
  const put = (k: string, v: string | null | undefined) => {
    if (v) a[k] = v;
  };
  put('house_number', houseNumberOf(r));
  put('road', streetOf(r));
  put('suburb', suburbOf(r));
  put('city', r.locality);
  put('county', r.county);
  put('state', r.region);
  put('postcode', r.postcode);
  put('country', r.country);
  put('country_code', r.countryCode?.toLowerCase());
  return a;
}

const fixed = (n: number) => n.toFixed(7);

/** [min lat, max lat, min lon, max lon] as strings (Output.md "boundingbox"); the point itself without an extent. */
function boundingbox(r: SearchResult, lat: number, lon: number): string[] {
  const b = r.bbox ?? [lon, lat, lon, lat];
  return [fixed(b[1]), fixed(b[3]), fixed(b[0]), fixed(b[2])];
}

/** One place of a json/jsonv2 answer. */
function jsonPlace(r: SearchResult, v: NominatimSearchView, licence: string): Record<string, unknown> {
  const lat = r.lat ?? r.query.lat;
  const lon = r.lon ?? r.query.lon;
  const t = placeType(r);
  return {
    place_id: placeNumber(r),
    licence,
    lat: fixed(lat),
    lon: fixed(lon),
    [v.format === 'jsonv2' ? 'category' : 'class']: t.category,
    type: t.type,
    ...(v.format === 'jsonv2' ? { place_rank: t.rank } : {}),
    importance: r.relevance ?? 0,
    display_name: r.displayName,
    ...(v.addressdetails ? { address: addressOf(r) } : {}),
    boundingbox: boundingbox(r, lat, lon),
  };
}

/** A search answer as Nominatim renders it for the view's format. */
export function renderNominatimSearch(v: NominatimSearchView, a: SearchResults): AdapterResponse {
  const licence = a.attribution;
  if (v.format === 'json' || v.format === 'jsonv2')
    return json(
      200,
      a.results.map((r) => jsonPlace(r, v, licence)),
    );
  const features = a.results.map((r) => {
    const lat = r.lat ?? r.query.lat;
    const lon = r.lon ?? r.query.lon;
    const [s, n, w, e] = boundingbox(r, lat, lon).map(Number) as [number, number, number, number];
    const geometry = { type: 'Point', coordinates: [lon, lat] };
    if (v.format === 'geocodejson') {
      const address = addressOf(r);
      const geocoding = {
        place_id: placeNumber(r),
        type: placeType(r).type,
        label: r.displayName,
        housenumber: address['house_number'],
        street: address['road'],
        district: address['suburb'],
        city: address['city'],
        county: address['county'],
        state: address['state'],
        postcode: address['postcode'],
        country: address['country'],
        country_code: address['country_code'],
      };
      return { type: 'Feature', properties: { geocoding }, geometry };
    }
    const t = placeType(r);
    const properties = {
      place_id: placeNumber(r),
      place_rank: t.rank,
      category: t.category,
      type: t.type,
      importance: r.relevance ?? 0,
      display_name: r.displayName,
      ...(v.addressdetails ? { address: addressOf(r) } : {}),
    };
    return { type: 'Feature', properties, bbox: [w, s, e, n], geometry };
  });
  if (v.format === 'geocodejson')
    return json(200, {
      type: 'FeatureCollection',
      geocoding: { version: '0.1.0', attribution: licence, licence: 'see attribution', query: '' },
      features,
    });
  return json(200, { type: 'FeatureCollection', licence, features });
}

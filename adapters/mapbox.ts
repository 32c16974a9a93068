/**
 * Drop-in host for Mapbox geocoding clients: v5 `GET /geocoding/v5/mapbox.places/{lon},{lat}.json` (comma raw, as
 * the SDK sends it, or `%2C`, as node-geocoder does) and v6 `GET /search/geocode/v6/reverse?longitude=&latitude=`;
 * forward lookups (issue 11) v5 `/geocoding/v5/mapbox.places/{search text}.json` and v6 `/search/geocode/v6/forward?q=`.
 * The credential is the `access_token` query parameter (providers.md 1.10, 2.3).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { alpha3 } from './common/country';
import { parseLatLon, splitPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { placeNumber, regionLetters, resultPoint } from './common/place';
import { parseQuery } from './common/query';
import type { Query } from './common/query';
import { json } from './common/respond';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult, SearchResults } from './types';
import {
  searchBounds,
  searchCall,
  searchCountries,
  searchLanguage,
  searchLimit,
  searchPoint,
  searchText,
} from './common/search';
import { houseNumberOf, streetLine, streetOf, suburbOf } from './common/street';

/** The feature level answered: the place (locality), or the region or country when `types` asks only for those. */
type Level = 'place' | 'region' | 'country';

/** Rendering state: API version and the level the `types` filter admits (null: nothing matches). */
export interface MapboxState {
  version: 5 | 6;
  level: Level | null;
  query: [number, number];
  /** Whether an address feature may answer (no `types`, or `types` lists address): street-level records (D25). */
  address?: boolean;
  /** A forward lookup: v5 echoes the search text's words as `query`. */
  forward?: string[];
}

/** A Mapbox error: HTTP status and `message`. */
export interface MapboxError {
  status: number;
  message: string;
}

/** D24: each gateway code as a Mapbox `{"message"}` error (402 for no credits: Mapbox documents none, HTTP's own). */
export const MAPBOX_ERRORS: ErrorTable<MapboxError> = {
  missing_key: { status: 401, message: 'Not Authorized - No Token' },
  invalid_key: { status: 401, message: 'Not Authorized - Invalid Token' },
  key_revoked: { status: 401, message: 'Not Authorized - Invalid Token' },
  no_credits: { status: 402, message: 'Payment Required' },
  key_ip_limit: { status: 403, message: 'Forbidden' },
  account_ip_limit: { status: 403, message: 'Forbidden' },
  account_suspended: { status: 403, message: 'Forbidden' },
  key_restricted: { status: 403, message: 'Forbidden' },
  quota_exceeded: { status: 429, message: 'Too Many Requests' },
  rate_limited: { status: 429, message: 'Too Many Requests' },
  conflicting_credentials: { status: 422, message: 'Conflicting credentials' },
  invalid_parameter: { status: 422, message: 'Invalid query' },
  invalid_forwarded: { status: 422, message: 'Invalid query' },
  ipv4_required: { status: 422, message: 'An IPv4 address is required' },
  not_found: { status: 404, message: 'Not Found' },
  search_unavailable: { status: 422, message: 'Invalid query' },
  method_not_allowed: { status: 405, message: 'Method Not Allowed' },
  backend_unavailable: { status: 502, message: 'Bad Gateway' },
  backend_timeout: { status: 504, message: 'Gateway Timeout' },
  store_unavailable: { status: 503, message: 'Service Unavailable' },
  internal: { status: 500, message: 'Internal Server Error' },
};

const V5 = /^\/geocoding\/v5\/mapbox\.places(?:-permanent)?\/([^/]+)\.json$/;
const V6 = '/search/geocode/v6/reverse';
const V6_FORWARD = '/search/geocode/v6/forward';
/** A path segment that is only numbers, commas, dots, minus signs and spaces: a malformed point, not a text. */
const NUMERIC = /^[\d\s.,+-]+$/;

/** The level the `types` filter admits: place if allowed, else region, else country, else none. */
function levelFor(q: Query): Level | null {
  const types = q.get('types')?.[0];
  if (types === undefined || types === '') return 'place';
  const list = types.split(',').map((t) => t.trim());
  return (['place', 'region', 'country'] as const).find((l) => list.includes(l)) ?? null;
}

/** Whether the request lets an address feature answer: no `types`, or `types` lists `address`. */
function wantsAddress(q: Query): boolean {
  const types = q.get('types')?.[0];
  return types === undefined || types === '' || types.split(',').some((t) => t.trim() === 'address');
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const MAPBOX_FORMS: readonly RequestForm[] = [
  {
    example: '/geocoding/v5/mapbox.places/2.2945,48.8584.json?access_token=K',
    clients: '@mapbox/mapbox-sdk (comma raw)',
  },
  {
    example: '/geocoding/v5/mapbox.places/2.2945%2C48.8584.json?access_token=K',
    clients: 'node-geocoder mapbox (comma encoded)',
  },
  {
    example: '/geocoding/v5/mapbox.places/2.2945%2C48.8584.json/?access_token=K',
    clients: 'geopy MapBox (mapbox.py:19, trailing slash)',
  },
  {
    example: '/geocoding/v5/mapbox.places-permanent/2.2945,48.8584.json?access_token=K',
    clients: 'permanent geocoding mode',
  },
  {
    example: '/geocoding/v5/mapbox.places/2.2945,%2048.8584.json?access_token=K',
    clients: 'a space after the comma',
  },
  {
    example: '/search/geocode/v6/reverse?longitude=2.2945&latitude=48.8584&access_token=K',
    clients: '@mapbox/mapbox-sdk geocoding-v6',
  },
  {
    example: '/search/geocode/v6/reverse/?longitude=2.2945&latitude=48.8584&access_token=K',
    clients: 'trailing slash',
  },
];

/**
 * A forward lookup: `limit` (1..10, default 5: Mapbox's own bounds), `country` (alpha-2 list), `language`,
 * `proximity` (lon,lat), `bbox` (minLon,minLat,maxLon,maxLat). `types` and `autocomplete` are accepted, not applied.
 */
function parseForward(text: string | undefined, q: Query, version: 5 | 6): ParseResult<MapboxState> {
  const v: Record<string, string | undefined> = {};
  for (const name of ['limit', 'country', 'language', 'proximity', 'bbox']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const t = searchText(text, version === 5 ? 'query' : 'q');
  if (!t.ok) return refuse('invalid_parameter', t.parameter, t.detail);
  const limit = searchLimit(v['limit'], 'limit', 5, 10);
  if (!limit.ok) return refuse('invalid_parameter', limit.parameter, limit.detail);
  const countries = searchCountries(v['country'], 'country');
  if (!countries.ok) return refuse('invalid_parameter', countries.parameter, countries.detail);
  const language = searchLanguage(v['language'], 'language');
  if (!language.ok) return refuse('invalid_parameter', language.parameter, language.detail);
  const focus =
    v['proximity'] === 'ip'
      ? { ok: true as const, value: null }
      : searchPoint(v['proximity'], 'proximity', true);
  if (!focus.ok) return refuse('invalid_parameter', focus.parameter, focus.detail);
  const bounds = searchBounds(v['bbox'], 'bbox', 'lonlat');
  if (!bounds.ok) return refuse('invalid_parameter', bounds.parameter, bounds.detail);
  const call = searchCall(t.value, {
    limit: limit.value,
    countries: countries.value,
    language: language.value,
    focus: focus.value,
    bounds: bounds.value,
  });
  const words = t.value
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const state: MapboxState = { version, level: levelFor(q), query: [0, 0], forward: words, address: true };
  return { ok: true, request: { call, state } };
}

function parse(req: AdapterRequest): ParseResult<MapboxState> {
  const path = routePath(req.path);
  const v5 = V5.exec(path);
  if (!v5 && path !== V6 && path !== V6_FORWARD) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  if (path === V6_FORWARD) {
    const text = once(q, 'q');
    return 'refusal' in text ? text.refusal : parseForward(text.value, q, 6);
  }
  let lonText: string | undefined;
  let latText: string | undefined;
  if (v5) {
    const pair = splitPair(v5[1] as string);
    if (pair === null && !NUMERIC.test(v5[1] as string)) return parseForward(v5[1], q, 5);
    if (pair === null)
      return refuse(
        'invalid_parameter',
        'query',
        'only reverse geocoding ({longitude},{latitude}) is served',
      );
    [lonText, latText] = pair;
  } else {
    const lon = once(q, 'longitude');
    if ('refusal' in lon) return lon.refusal;
    const lat = once(q, 'latitude');
    if ('refusal' in lat) return lat.refusal;
    [lonText, latText] = [lon.value, lat.value];
  }
  const point = parseLatLon(latText, lonText, { lat: 'latitude', lon: 'longitude' });
  if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
  const state: MapboxState = { version: v5 ? 5 : 6, level: levelFor(q), query: [point.lon, point.lat] };
  if (wantsAddress(q)) state.address = true;
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state } };
}

/** The answer's level for this record: the requested level, stepping up when the record lacks it. */
function answerLevel(state: MapboxState, r: ReverseRecord): Level | null {
  if (state.level === 'place' && r.locality) return 'place';
  if (state.level !== 'country' && state.level !== null && r.region) return 'region';
  return state.level !== null && r.country ? 'country' : null;
}

function v5Feature(r: ReverseRecord, level: Level): Record<string, unknown> {
  const n = placeNumber(r);
  const p = resultPoint(r);
  const context: Record<string, string>[] = [];
  if (level === 'place' && r.county) context.push({ id: `district.${n}`, text: r.county });
  if (level !== 'region' && level !== 'country' && r.region) {
    const code = regionLetters(r);
    context.push({
      id: `region.${n}`,
      text: r.region,
      ...(code && r.countryCode ? { short_code: `${r.countryCode}-${code}` } : {}),
    });
  }
  if (level !== 'country' && r.country && r.countryCode) {
    context.push({ id: `country.${n}`, text: r.country, short_code: r.countryCode.toLowerCase() });
  }
  const text = level === 'place' ? r.locality : level === 'region' ? r.region : r.country;
  return {
    id: `${level}.${n}`,
    type: 'Feature',
    place_type: [level],
    relevance: 1,
    properties: level === 'country' && r.countryCode ? { short_code: r.countryCode.toLowerCase() } : {},
    text,
    place_name:
      level === 'place'
        ? r.displayName
        : [text, level === 'region' ? r.country : null].filter(Boolean).join(', '),
    center: [p.lon, p.lat],
    geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
    context,
  };
}

function v6Feature(r: ReverseRecord, level: Level): Record<string, unknown> {
  const id = `geogate.${level}.${placeNumber(r)}`;
  const p = resultPoint(r);
  const context: Record<string, unknown> = {};
  if (r.country && r.countryCode) {
    context['country'] = {
      mapbox_id: `${id}.country`,
      name: r.country,
      country_code: r.countryCode,
      country_code_alpha_3: alpha3(r.countryCode),
    };
  }
  if (level !== 'country' && r.region) {
    context['region'] = {
      mapbox_id: `${id}.region`,
      name: r.region,
      ...(regionLetters(r) ? { region_code: regionLetters(r) } : {}),
    };
  }
  if (level === 'place' && r.locality) context['place'] = { mapbox_id: id, name: r.locality };
  const name = (level === 'place' ? r.locality : level === 'region' ? r.region : r.country) ?? '';
  const placeFormatted =
    level === 'place'
      ? [r.region, r.country].filter(Boolean).join(', ')
      : level === 'region'
        ? (r.country ?? '')
        : '';
  return {
    type: 'Feature',
    id,
    geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
    properties: {
      mapbox_id: id,
      feature_type: level,
      full_address: level === 'place' ? r.displayName : [name, placeFormatted].filter(Boolean).join(', '),
      name,
      name_preferred: name,
      place_formatted: placeFormatted,
      coordinates: { longitude: p.lon, latitude: p.lat },
      context,
    },
  };
}

/** A v5 address feature (`place_type: ["address"]`, `text` the street, `address` the number). */
function v5Address(r: ReverseRecord, street: string): Record<string, unknown> {
  const n = placeNumber(r);
  const p = resultPoint(r);
  const number = houseNumberOf(r);
  const under = v5Feature(r, r.locality ? 'place' : r.region ? 'region' : 'country');
  const context: Record<string, string>[] = [];
  if (suburbOf(r)) context.push({ id: `neighborhood.${n}`, text: suburbOf(r) as string });
  if (r.postcode) context.push({ id: `postcode.${n}`, text: r.postcode });
  if (r.locality) context.push({ id: `place.${n}`, text: r.locality });
  context.push(...(under['context'] as Record<string, string>[]));
  return {
    id: `address.${n}`,
    type: 'Feature',
    place_type: ['address'],
    relevance: 1,
    properties: { accuracy: number ? 'rooftop' : 'street' },
    text: street,
    place_name: r.displayName,
    center: [p.lon, p.lat],
    geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
    ...(number ? { address: number } : {}),
    context,
  };
}

/** A v6 address or street feature (`feature_type`, `context.address`/`street`/`postcode`). */
function v6Address(r: ReverseRecord, street: string): Record<string, unknown> {
  const number = houseNumberOf(r);
  const base = v6Feature(r, r.locality ? 'place' : r.region ? 'region' : 'country');
  const props = base['properties'] as Record<string, unknown>;
  const id = `geogate.address.${placeNumber(r)}`;
  const context = { ...(props['context'] as Record<string, unknown>) };
  if (r.postcode) context['postcode'] = { mapbox_id: `${id}.postcode`, name: r.postcode };
  context['street'] = { mapbox_id: `${id}.street`, name: street };
  if (number)
    context['address'] = {
      mapbox_id: id,
      address_number: number,
      street_name: street,
      name: `${number} ${street}`,
    };
  const name = streetLine(r) ?? street;
  const placeFormatted = [r.locality, r.region, r.postcode, r.country].filter(Boolean).join(', ');
  return {
    ...base,
    id,
    properties: {
      ...props,
      mapbox_id: id,
      feature_type: number ? 'address' : 'street',
      full_address: r.displayName,
      name,
      name_preferred: name,
      place_formatted: placeFormatted,
      context,
    },
  };
}

function renderReverse(state: MapboxState, r: ReverseRecord): AdapterResponse {
  const street = state.address ? streetOf(r) : null;
  if (street !== null) {
    const feature = state.version === 6 ? v6Address(r, street) : v5Address(r, street);
    const collection = { type: 'FeatureCollection', features: [feature], attribution: r.attribution };
    return json(200, state.version === 6 ? collection : { ...collection, query: state.query });
  }
  const level = answerLevel(state, r);
  if (state.version === 6) {
    return json(200, {
      type: 'FeatureCollection',
      features: level ? [v6Feature(r, level)] : [],
      attribution: r.attribution,
    });
  }
  const features = level ? [v5Feature(r, level)] : [];
  return json(200, { type: 'FeatureCollection', query: state.query, features, attribution: r.attribution });
}

/** A forward lookup's features, best first: address features where the result has a street, else its level. */
function renderSearch(state: MapboxState, a: SearchResults): AdapterResponse {
  const features = a.results.map((r) => {
    const street = streetOf(r);
    const level: Level = r.locality ? 'place' : r.region ? 'region' : 'country';
    const f =
      street !== null
        ? state.version === 6
          ? v6Address(r, street)
          : v5Address(r, street)
        : state.version === 6
          ? v6Feature(r, level)
          : v5Feature(r, level);
    if (state.version === 6) {
      const props = f['properties'] as Record<string, unknown>;
      return { ...f, properties: { ...props, ...(r.bbox ? { bbox: r.bbox } : {}) } };
    }
    return { ...f, relevance: r.relevance ?? 1, ...(r.bbox ? { bbox: r.bbox } : {}) };
  });
  if (state.version === 6)
    return json(200, { type: 'FeatureCollection', features, attribution: a.attribution });
  return json(200, {
    type: 'FeatureCollection',
    query: state.forward ?? [],
    features,
    attribution: a.attribution,
  });
}

/** Renders a refusal; `not_found` with a parsed request is the backend's "no result": an empty FeatureCollection. */
function renderError(
  state: MapboxState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) {
    return json(200, {
      type: 'FeatureCollection',
      ...(state.version === 5 ? { query: state.query } : {}),
      features: [],
    });
  }
  const row = MAPBOX_ERRORS[code];
  return json(row.status, { message: withTopUp(detail || row.message, facts) });
}

/** A Mapbox-shaped token: usage, base64 JSON payload, and a third part that carries the geogate key. */
const TOKEN = /^[a-z]{2}\.[A-Za-z0-9_\-+/=]+\.(.+)$/;

/**
 * The geogate key inside an access token. The official SDK refuses tokens not shaped `pk.<base64 JSON>.<sig>` before
 * sending (providers.md 2.3), so a geogate key travels as the third part, e.g. `pk.eyJ1IjoiZ2VvZ2F0ZSJ9.<key>`; a bare
 * key (node-geocoder, curl) is taken as it is.
 */
export function unwrapToken(token: string): string {
  return TOKEN.exec(token)?.[1] ?? token;
}

/** The Mapbox adapter. */
export const mapbox: Adapter<MapboxState> = {
  name: 'mapbox',
  credentialParams: ['access_token'],
  providerCredentials: (req) =>
    queryCredentials(req, ['access_token']).map((c) => ({ ...c, value: unwrapToken(c.value) })),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: MapboxState, _r: IpRecord) =>
    renderError(null, 'not_found', 'IP lookups are not served here', {}),
  renderError,
};

/**
 * Drop-in host for Pelias clients (geocode.earth and self-hosted Pelias): `GET /v1/reverse?point.lat=&point.lon=`
 * with the key in `api_key`, answered as Pelias's GeoJSON FeatureCollection with its `geocoding` envelope
 * (attribution, query, errors). Forward search (`/v1/search`, `/v1/search/structured`, `/v1/autocomplete`) is
 * refused in Pelias's error envelope with 400 until the backend can search. Refusals follow geocode.earth: 401
 * without or with a bad key, 403 over the plan limit (no credit), 429 with the rate-limit headers the gateway adds.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { parseLatLon } from './common/coords';
import { alpha3 } from './common/country';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, placeNumber, resultPoint, smallBox } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import {
  partsText,
  searchBounds,
  searchCall,
  searchCountries,
  searchLanguage,
  searchLimit,
  searchText,
  type Checked,
} from './common/search';
import type {
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParseResult,
  SearchParts,
  SearchResults,
} from './types';
import { houseNumberOf, streetLine, streetOf, suburbOf } from './common/street';

/** The request as Pelias echoes it in `geocoding.query` (the point of a reverse, the text and size of a search). */
export interface PeliasState {
  query: Record<string, string | number>;
}

/** A Pelias error: the HTTP status and the fixed text used in `geocoding.errors` when the gateway gives none. */
export interface PeliasError {
  status: number;
  error: string;
}

/** D24: each gateway code as a Pelias / geocode.earth error. */
export const PELIAS_ERRORS: ErrorTable<PeliasError> = {
  missing_key: { status: 401, error: 'Unauthorized: an api_key is required' },
  invalid_key: { status: 401, error: 'Unauthorized: invalid api_key' },
  key_revoked: { status: 401, error: 'Unauthorized: api_key revoked' },
  no_credits: { status: 403, error: 'Forbidden: plan limit exceeded' },
  key_ip_limit: { status: 403, error: 'Forbidden: all IP slots of this key are in use' },
  account_ip_limit: { status: 403, error: 'Forbidden: address limit of this account reached' },
  account_suspended: { status: 403, error: 'Forbidden: account suspended' },
  key_restricted: { status: 403, error: 'Forbidden: api_key not allowed from this page or address' },
  quota_exceeded: { status: 429, error: 'Too Many Requests: daily limit exceeded' },
  rate_limited: { status: 429, error: 'Too Many Requests: rate limit exceeded' },
  conflicting_credentials: { status: 400, error: 'conflicting api_key values' },
  invalid_parameter: { status: 400, error: 'invalid parameter' },
  invalid_forwarded: { status: 400, error: 'invalid forwarding header' },
  ipv4_required: { status: 400, error: 'an IPv4 address is required' },
  not_found: { status: 404, error: 'not found' },
  search_unavailable: { status: 400, error: 'search is not available' },
  method_not_allowed: { status: 405, error: 'method not allowed' },
  backend_unavailable: { status: 502, error: 'bad gateway' },
  backend_timeout: { status: 504, error: 'gateway timeout' },
  store_unavailable: { status: 503, error: 'service unavailable' },
  internal: { status: 500, error: 'internal server error' },
};

/** The accepted request forms: reverse, and the search endpoints (issue 11). */
export const PELIAS_PATHS = {
  reverse: ['/v1/reverse'],
  search: ['/v1/search', '/v1/search/structured', '/v1/autocomplete'],
} as const;

/** The reverse forms Pelias clients send (issue 16 item 1); Pelias (express) also answers with a trailing slash. */
export const PELIAS_FORMS: readonly RequestForm[] = [
  {
    example: '/v1/reverse?point.lat=48.8584&point.lon=2.2945&api_key=K',
    clients: 'geopy Pelias, GeocodeEarth',
  },
  {
    example: '/v1/reverse?api_key=K&point.lon=2.2945&point.lat=48.8584&size=1&lang=en&layers=locality',
    clients: 'geocode.earth examples (size, lang, layers ignored)',
  },
  {
    example: '/v1/reverse?point.lat=48.8584&point.lon=2.2945&sources=wof&boundary.circle.radius=1&api_key=K',
    clients: 'Pelias documentation (sources, boundary.* ignored)',
  },
  { example: '/v1/reverse/?point.lat=48.8584&point.lon=2.2945&api_key=K', clients: 'trailing slash' },
];

const ENGINE = { name: 'Pelias', author: 'Mapzen', version: '1.0' };

/** Pelias's structured fields (search.md "structured") → the canonical parts. */
const STRUCTURED: readonly [string, keyof SearchParts][] = [
  ['address', 'street'],
  ['locality', 'city'],
  ['county', 'county'],
  ['region', 'state'],
  ['postalcode', 'postcode'],
  ['country', 'country'],
];
const SEARCH_PARAMS = [
  'text',
  'size',
  'boundary.country',
  'focus.point.lat',
  'focus.point.lon',
  'boundary.rect.min_lon',
  'boundary.rect.min_lat',
  'boundary.rect.max_lon',
  'boundary.rect.max_lat',
  'lang',
  ...STRUCTURED.map(([name]) => name),
];

/**
 * `/v1/search`, `/v1/autocomplete` (`text`) and `/v1/search/structured` (address, locality, county, region,
 * postalcode, country): `size` (default 10, at most 40), `boundary.country` (alpha-2 list), `focus.point.*`,
 * `boundary.rect.*`, `lang` (search.md).
 */
function parseSearch(path: string, q: Query): ParseResult<PeliasState> {
  const v: Record<string, string | undefined> = {};
  for (const name of SEARCH_PARAMS) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  let parts: SearchParts | null = null;
  if (path === '/v1/search/structured') {
    parts = {};
    for (const [name, key] of STRUCTURED) if (v[name]?.trim()) parts[key] = (v[name] as string).trim();
    if (Object.keys(parts).length === 0)
      return refuse(
        'invalid_parameter',
        'address',
        'one of address, locality, county, region, postalcode or country is required',
      );
  }
  const t = searchText(parts ? partsText(parts) : v['text'], 'text');
  const size = searchLimit(v['size'], 'size', 10, 40);
  const countries = searchCountries(v['boundary.country'], 'boundary.country');
  const lang = searchLanguage(v['lang'], 'lang');
  for (const c of [t, size, countries, lang] as Checked<unknown>[])
    if (!c.ok) return refuse('invalid_parameter', c.parameter, c.detail);
  let focus: { lat: number; lon: number } | null = null;
  if (v['focus.point.lat'] !== undefined || v['focus.point.lon'] !== undefined) {
    const point = parseLatLon(v['focus.point.lat'], v['focus.point.lon'], {
      lat: 'focus.point.lat',
      lon: 'focus.point.lon',
    });
    if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
    focus = { lat: point.lat, lon: point.lon };
  }
  const rect = ['min_lon', 'min_lat', 'max_lon', 'max_lat'].map((k) => v[`boundary.rect.${k}`]);
  const given = rect.filter((x) => x !== undefined).length;
  if (given !== 0 && given !== 4)
    return refuse(
      'invalid_parameter',
      'boundary.rect.min_lon',
      'boundary.rect needs all four of min_lon, min_lat, max_lon, max_lat',
    );
  const bounds = searchBounds(
    given === 4 ? rect.join(',') : undefined,
    'boundary.rect.min_lon',
    'lonlat',
    true,
  );
  if (!bounds.ok) return refuse('invalid_parameter', bounds.parameter, bounds.detail);
  const value = <T>(c: Checked<T>): T => (c as { value: T }).value;
  const call = searchCall(value(t), {
    parts,
    limit: value(size),
    countries: value(countries),
    language: value(lang),
    focus,
    bounds: bounds.value,
  });
  const query: Record<string, string | number> = { text: value(t), size: value(size) };
  if (v['boundary.country'] !== undefined) query['boundary.country'] = v['boundary.country'];
  return { ok: true, request: { call, state: { query } } };
}

/** A search answer: Pelias's FeatureCollection best first, `confidence` and `bbox` per feature, the overall bbox. */
function renderSearch(state: PeliasState, a: SearchResults): AdapterResponse {
  const features = a.results.map((r) => {
    const p = resultPoint(r);
    const props = properties(r);
    delete props['distance'];
    if (r.relevance !== null) props['confidence'] = r.relevance;
    return {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
      properties: props,
      ...(r.bbox ? { bbox: r.bbox } : {}),
    };
  });
  const boxes = a.results.map((r) => {
    const p = resultPoint(r);
    return r.bbox ?? [p.lon, p.lat, p.lon, p.lat];
  });
  const bbox =
    boxes.length === 0
      ? undefined
      : [
          Math.min(...boxes.map((b) => b[0] as number)),
          Math.min(...boxes.map((b) => b[1] as number)),
          Math.max(...boxes.map((b) => b[2] as number)),
          Math.max(...boxes.map((b) => b[3] as number)),
        ];
  return json(200, {
    geocoding: envelope(a.attribution, state.query),
    type: 'FeatureCollection',
    features,
    ...(bbox ? { bbox } : {}),
  });
}

function parse(req: AdapterRequest): ParseResult<PeliasState> {
  const path = routePath(req.path);
  const search = (PELIAS_PATHS.search as readonly string[]).includes(path);
  if (!search && !(PELIAS_PATHS.reverse as readonly string[]).includes(path)) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  if (search) return parseSearch(req.path, q);
  const values: Record<string, string | undefined> = {};
  for (const name of ['point.lat', 'point.lon']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    values[name] = read.value;
  }
  const point = parseLatLon(values['point.lat'], values['point.lon'], { lat: 'point.lat', lon: 'point.lon' });
  if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
  const state: PeliasState = { query: { 'point.lat': point.lat, 'point.lon': point.lon } };
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state } };
}

/** Pelias's properties for the record's place (layer locality, else country). */
function properties(r: ReverseRecord): Record<string, unknown> {
  const number = houseNumberOf(r);
  const street = streetOf(r);
  const layer = number ? 'address' : street ? 'street' : r.locality !== null ? 'locality' : 'country';
  const id = String(placeNumber(r));
  return compact({
    id,
    gid: `geogate:${layer}:${id}`,
    layer,
    source: 'geogate',
    source_id: id,
    name: streetLine(r) ?? r.locality ?? r.country,
    housenumber: number,
    street,
    distance: r.distanceKm,
    accuracy: number ? 'point' : 'centroid',
    country: r.country,
    country_a: alpha3(r.countryCode),
    country_code: r.countryCode,
    region: r.region,
    county: r.county,
    locality: r.locality,
    neighbourhood: suburbOf(r),
    postalcode: r.postcode,
    label: r.displayName,
  });
}

/** The `geocoding` envelope every Pelias answer carries. */
function envelope(
  attribution: string | undefined,
  query: object,
  errors?: string[],
): Record<string, unknown> {
  return compact({ version: '0.2', attribution, query, errors, engine: ENGINE });
}

function renderReverse(state: PeliasState, r: ReverseRecord): AdapterResponse {
  const [s, n, w, e] = smallBox(r);
  const found = r.locality !== null || r.country !== null;
  const p = resultPoint(r);
  const features = found
    ? [
        {
          type: 'Feature',
          geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
          properties: properties(r),
        },
      ]
    : [];
  return json(200, {
    geocoding: envelope(r.attribution, { ...state.query, size: 1 }),
    type: 'FeatureCollection',
    features,
    ...(found ? { bbox: [w, s, e, n] } : {}),
  });
}

/** Renders a refusal in the envelope with `geocoding.errors`; `not_found` with a request is an empty answer. */
function renderError(
  state: PeliasState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  const query = state?.query ?? {};
  if (code === 'not_found' && state !== null) {
    return json(200, { geocoding: envelope(undefined, query), type: 'FeatureCollection', features: [] });
  }
  const row = PELIAS_ERRORS[code];
  return json(row.status, {
    geocoding: envelope(undefined, query, [withTopUp(detail || row.error, facts)]),
    type: 'FeatureCollection',
    features: [],
  });
}

/** The Pelias adapter. */
export const pelias: Adapter<PeliasState> = {
  name: 'pelias',
  credentialParams: ['api_key'],
  providerCredentials: (req) => queryCredentials(req, ['api_key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: PeliasState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

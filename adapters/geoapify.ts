/**
 * Drop-in host for Geoapify clients: `GET /v1/geocode/reverse?lat=&lon=&apiKey=`, a GeoJSON FeatureCollection by
 * default or `{results:[…]}` with `format=json` (providers.md 1.9). Geoapify's error body is not documented in any
 * source we found (⚠); we answer `{statusCode, error, message}`, the shape its API gateway is recalled to use.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import { parseLatLon } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { Level } from './common/level';
import { answerLevel, nameAt } from './common/level';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, distanceMetres, placeNumber, regionLetters, resultPoint, smallBox } from './common/place';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult } from './types';
import { houseNumberOf, streetLine, streetOf, suburbOf } from './common/street';

/** Output format and the requested level (`type=city|state|country`; null: a type we cannot answer). */
export interface GeoapifyState {
  format: 'geojson' | 'json';
  level: Level | null;
  query: { lat: number; lon: number };
}

/** A Geoapify error (⚠ shape): HTTP status, `error` (reason phrase) and the message. */
export interface GeoapifyError {
  status: number;
  error: string;
}

/** D24: each gateway code as a Geoapify error (⚠ Geoapify's own statuses are undocumented; HTTP's meanings used). */
export const GEOAPIFY_ERRORS: ErrorTable<GeoapifyError> = {
  missing_key: { status: 401, error: 'Unauthorized' },
  invalid_key: { status: 401, error: 'Unauthorized' },
  key_revoked: { status: 401, error: 'Unauthorized' },
  no_credits: { status: 402, error: 'Payment Required' },
  key_ip_limit: { status: 403, error: 'Forbidden' },
  account_ip_limit: { status: 403, error: 'Forbidden' },
  account_suspended: { status: 403, error: 'Forbidden' },
  quota_exceeded: { status: 429, error: 'Too Many Requests' },
  conflicting_credentials: { status: 400, error: 'Bad Request' },
  invalid_parameter: { status: 400, error: 'Bad Request' },
  invalid_forwarded: { status: 400, error: 'Bad Request' },
  ipv4_required: { status: 400, error: 'Bad Request' },
  not_found: { status: 404, error: 'Not Found' },
  search_unavailable: { status: 400, error: 'Bad Request' },
  method_not_allowed: { status: 405, error: 'Method Not Allowed' },
  backend_unavailable: { status: 502, error: 'Bad Gateway' },
  backend_timeout: { status: 504, error: 'Gateway Timeout' },
  store_unavailable: { status: 503, error: 'Service Unavailable' },
  internal: { status: 500, error: 'Internal Server Error' },
};

const TYPES: Record<string, Level> = { city: 'locality', state: 'region', country: 'country' };

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const GEOAPIFY_FORMS: readonly RequestForm[] = [
  {
    example: '/v1/geocode/reverse?lat=48.8584&lon=2.2945&apiKey=K',
    clients: 'Geoapify docs, geopy-style clients',
  },
  { example: '/v1/geocode/reverse?lat=48.8584&lon=2.2945&format=json&apiKey=K', clients: 'format=json' },
  { example: '/v1/geocode/reverse?lat=48.8584&lon=2.2945&type=city&apiKey=K', clients: 'type filter' },
  { example: '/v1/geocode/reverse/?lat=48.8584&lon=2.2945&apiKey=K', clients: 'trailing slash' },
];

function parse(req: AdapterRequest): ParseResult<GeoapifyState> {
  if (routePath(req.path) !== '/v1/geocode/reverse') return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  const values: Record<string, string | undefined> = {};
  for (const name of ['lat', 'lon', 'format', 'type']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    values[name] = read.value;
  }
  const point = parseLatLon(values['lat'], values['lon'], { lat: 'lat', lon: 'lon' });
  if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
  const format = values['format'] ?? 'geojson';
  if (format !== 'geojson' && format !== 'json')
    return refuse('invalid_parameter', 'format', 'format must be geojson or json');
  const type = values['type'];
  const level = type === undefined ? 'locality' : (TYPES[type] ?? null);
  const state: GeoapifyState = { format, level, query: { lat: point.lat, lon: point.lon } };
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state } };
}

function properties(r: ReverseRecord, level: Level): Record<string, unknown> {
  const p = resultPoint(r);
  // A street-level record at the locality level answers the building or street (D25 connectors).
  const line = level === 'locality' ? streetLine(r) : null;
  const name = line ?? nameAt(level, r);
  const rest =
    line !== null
      ? [[r.postcode, r.locality].filter(Boolean).join(' ') || null, r.country]
      : level === 'locality'
        ? [r.region, r.country]
        : level === 'region'
          ? [r.country]
          : [];
  return compact({
    datasource: { sourcename: 'geogate', attribution: r.attribution, license: 'see attribution' },
    name,
    country: r.country,
    country_code: r.countryCode?.toLowerCase(),
    state: level !== 'country' ? r.region : null,
    state_code: level !== 'country' ? regionLetters(r) : null,
    county: level === 'locality' ? r.county : null,
    city: level === 'locality' ? r.locality : null,
    suburb: level === 'locality' ? suburbOf(r) : null,
    street: level === 'locality' ? streetOf(r) : null,
    housenumber: level === 'locality' ? houseNumberOf(r) : null,
    postcode: level === 'locality' ? r.postcode : null,
    lon: p.lon,
    lat: p.lat,
    distance: distanceMetres(r),
    result_type:
      line !== null
        ? houseNumberOf(r)
          ? 'building'
          : 'street'
        : level === 'locality'
          ? 'city'
          : level === 'region'
            ? 'state'
            : 'country',
    formatted: level === 'locality' ? r.displayName : [name, ...rest].filter(Boolean).join(', '),
    address_line1: name,
    address_line2: rest.filter(Boolean).join(', '),
    timezone: r.timezone ? { name: r.timezone } : null,
    place_id: `geogate${placeNumber(r)}`,
  });
}

function renderReverse(state: GeoapifyState, r: ReverseRecord): AdapterResponse {
  const level = answerLevel(state.level, r);
  const [s, n, w, e] = smallBox(r);
  if (state.format === 'json') {
    const results = level ? [{ ...properties(r, level), bbox: { lon1: w, lat1: s, lon2: e, lat2: n } }] : [];
    return json(200, { results, query: state.query });
  }
  const p = resultPoint(r);
  const features = level
    ? [
        {
          type: 'Feature',
          properties: properties(r, level),
          geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
          bbox: [w, s, e, n],
        },
      ]
    : [];
  return json(200, { type: 'FeatureCollection', features, query: state.query });
}

/** Renders a refusal; `not_found` with a parsed request is the backend's "no result": an empty answer. */
function renderError(
  state: GeoapifyState | null,
  code: GatewayCode,
  detail: string,
  _f: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) {
    return json(
      200,
      state.format === 'json'
        ? { results: [], query: state.query }
        : { type: 'FeatureCollection', features: [], query: state.query },
    );
  }
  const row = GEOAPIFY_ERRORS[code];
  return json(row.status, { statusCode: row.status, error: row.error, message: detail || row.error });
}

/** The Geoapify adapter. */
export const geoapify: Adapter<GeoapifyState> = {
  name: 'geoapify',
  credentialParams: ['apiKey'],
  providerCredentials: (req) => queryCredentials(req, ['apiKey']),
  parse,
  renderReverse,
  renderIp: (_s: GeoapifyState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

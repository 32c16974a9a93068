/**
 * Drop-in host for Geoapify clients: `GET /v1/geocode/reverse?lat=&lon=&apiKey=`, a GeoJSON FeatureCollection by
 * default or `{results:[…]}` with `format=json` (providers.md 1.9). Geoapify's error body is not documented in any
 * source we found (⚠); we answer `{statusCode, error, message}`, the shape its API gateway is recalled to use.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { parseLatLon } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { Level } from './common/level';
import { answerLevel, nameAt } from './common/level';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, distanceMetres, placeNumber, regionLetters, resultPoint, smallBox } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import {
  partsText,
  searchCall,
  searchCountries,
  searchLanguage,
  searchLimit,
  searchPoint,
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

/** Output format and the requested level (`type=city|state|country`; null: a type we cannot answer). */
export interface GeoapifyState {
  format: 'geojson' | 'json';
  level: Level | null;
  /** The request as Geoapify echoes it: the point of a reverse lookup, the text of a search. */
  query: { lat: number; lon: number } | { text: string };
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
  key_restricted: { status: 403, error: 'Forbidden' },
  quota_exceeded: { status: 429, error: 'Too Many Requests' },
  rate_limited: { status: 429, error: 'Too Many Requests' },
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

/** Geoapify's structured search fields → the canonical parts. */
const STRUCTURED: readonly [string, keyof SearchParts][] = [
  ['street', 'street'],
  ['city', 'city'],
  ['state', 'state'],
  ['postcode', 'postcode'],
  ['country', 'country'],
];

/**
 * `/v1/geocode/search` (issue 11): `text`, or the structured fields (housenumber, street, city, state, postcode,
 * country); `limit` (default 5), `lang`, `filter=countrycode:de,fr`, `bias=proximity:lon,lat`, `format` (geojson, the
 * default, or json). Other filters and biases are accepted and not applied.
 */
function parseSearch(q: Query): ParseResult<GeoapifyState> {
  const v: Record<string, string | undefined> = {};
  for (const name of [
    'text',
    'housenumber',
    'limit',
    'lang',
    'filter',
    'bias',
    'format',
    ...STRUCTURED.map(([n]) => n),
  ]) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const format = v['format'] ?? 'geojson';
  if (format !== 'geojson' && format !== 'json')
    return refuse('invalid_parameter', 'format', 'format must be geojson or json');
  const parts: SearchParts = {};
  for (const [name, key] of STRUCTURED) if (v[name]?.trim()) parts[key] = (v[name] as string).trim();
  if (parts.street && v['housenumber']?.trim()) parts.street = `${v['housenumber'].trim()} ${parts.street}`;
  const structured = v['text'] === undefined && Object.keys(parts).length > 0;
  const t = searchText(structured ? partsText(parts) : v['text'], 'text');
  const limit = searchLimit(v['limit'], 'limit', 5);
  const lang = searchLanguage(v['lang'], 'lang');
  const cc = /^countrycode:(.*)$/.exec(v['filter'] ?? '');
  const countries = searchCountries(cc ? cc[1] : undefined, 'filter');
  const prox = /^proximity:(.*)$/.exec(v['bias'] ?? '');
  const focus = searchPoint(prox ? prox[1] : undefined, 'bias', true);
  for (const c of [t, limit, lang, countries, focus] as Checked<unknown>[])
    if (!c.ok) return refuse('invalid_parameter', c.parameter, c.detail);
  const value = <T>(c: Checked<T>): T => (c as { value: T }).value;
  const call = searchCall(value(t), {
    parts: structured ? parts : null,
    limit: value(limit),
    language: value(lang),
    countries: value(countries),
    focus: value(focus),
  });
  return { ok: true, request: { call, state: { format, level: 'locality', query: { text: value(t) } } } };
}

/** A search answer: Geoapify's results best first with `rank.confidence` and `bbox`; empty when nothing matched. */
function renderSearch(state: GeoapifyState, a: SearchResults): AdapterResponse {
  const items = a.results.map((r) => {
    const level = answerLevel('locality', r) ?? 'country';
    const props = properties(r, level);
    delete props['distance'];
    const rank = {
      confidence: r.relevance ?? 1,
      match_type: r.relevance === 1 ? 'full_match' : 'inner_part',
    };
    const [w, s, e, n] = r.bbox ?? [r.lon ?? 0, r.lat ?? 0, r.lon ?? 0, r.lat ?? 0];
    return { props: { ...props, rank }, box: [w, s, e, n] as const, point: resultPoint(r) };
  });
  if (state.format === 'json') {
    const results = items.map((i) => ({
      ...i.props,
      bbox: { lon1: i.box[0], lat1: i.box[1], lon2: i.box[2], lat2: i.box[3] },
    }));
    return json(200, { results, query: state.query });
  }
  const features = items.map((i) => ({
    type: 'Feature',
    properties: i.props,
    geometry: { type: 'Point', coordinates: [i.point.lon, i.point.lat] },
    bbox: [...i.box],
  }));
  return json(200, { type: 'FeatureCollection', features, query: state.query });
}

function parse(req: AdapterRequest): ParseResult<GeoapifyState> {
  const route = routePath(req.path);
  if (route !== '/v1/geocode/reverse' && route !== '/v1/geocode/search') return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  if (route === '/v1/geocode/search') return parseSearch(q);
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
  facts: ErrorFacts,
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
  return json(row.status, {
    statusCode: row.status,
    error: row.error,
    message: withTopUp(detail || row.error, facts),
  });
}

/** The Geoapify adapter. */
export const geoapify: Adapter<GeoapifyState> = {
  name: 'geoapify',
  credentialParams: ['apiKey'],
  providerCredentials: (req) => queryCredentials(req, ['apiKey']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: GeoapifyState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

/**
 * Drop-in host for Photon (komoot) clients: `GET /reverse?lat=&lon=` answers a GeoJSON FeatureCollection with
 * Photon's flat `properties` (osm_key/osm_value, name, city, state, country, countrycode, extent). Forward search
 * (`GET /api?q=`) is refused in Photon's own error shape, `{"message": …}` with 400, until the backend can search.
 * Photon has no key; the `key` query parameter is our addition (spec 4.3), as on the Nominatim host.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { parseLatLon } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse } from './common/parse';
import { compact, placeNumber, resultPoint, smallBox } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import { searchBounds, searchCall, searchLanguage, searchLimit, searchText } from './common/search';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult, SearchResults } from './types';
import { houseNumberOf, streetOf, suburbOf } from './common/street';

/** Photon reverse state: nothing to remember but the request itself (Photon has one output format). */
export interface PhotonState {
  query: { lat: number; lon: number };
}

/** A Photon error: the HTTP status and the fixed message used when the gateway gives no detail. */
export interface PhotonError {
  status: number;
  message: string;
}

/**
 * D24: each gateway code as a Photon error. Photon itself only sends `{"message"}` with 400 (bad parameters) and
 * 404/500; it has no keys, so the access refusals use HTTP's meanings (401/402/403/429) in the same shape.
 */
export const PHOTON_ERRORS: ErrorTable<PhotonError> = {
  missing_key: { status: 401, message: 'Missing API key' },
  invalid_key: { status: 401, message: 'Invalid API key' },
  key_revoked: { status: 401, message: 'API key revoked' },
  no_credits: { status: 402, message: 'No credits left' },
  key_ip_limit: { status: 403, message: 'All IP slots of this key are in use' },
  account_ip_limit: { status: 403, message: 'Address limit of this account reached' },
  account_suspended: { status: 403, message: 'Account suspended' },
  key_restricted: { status: 403, message: 'API key not allowed from this page or address' },
  quota_exceeded: { status: 429, message: 'Daily quota exceeded' },
  rate_limited: { status: 429, message: 'Too many requests' },
  conflicting_credentials: { status: 400, message: 'Conflicting credentials' },
  invalid_parameter: { status: 400, message: 'Invalid parameter' },
  invalid_forwarded: { status: 400, message: 'Invalid forwarding header' },
  ipv4_required: { status: 400, message: 'An IPv4 address is required' },
  not_found: { status: 404, message: 'Not found' },
  search_unavailable: { status: 400, message: 'Search is not available' },
  method_not_allowed: { status: 405, message: 'Method not allowed' },
  backend_unavailable: { status: 502, message: 'Bad gateway' },
  backend_timeout: { status: 504, message: 'Gateway timeout' },
  store_unavailable: { status: 503, message: 'Service unavailable' },
  internal: { status: 500, message: 'Internal server error' },
};

/** The accepted request forms (Photon answers each path with and without the trailing slash). */
export const PHOTON_PATHS = { reverse: ['/reverse', '/reverse/'], search: ['/api', '/api/'] } as const;

/** The reverse forms Photon clients send (issue 16 item 1). */
export const PHOTON_FORMS: readonly RequestForm[] = [
  { example: '/reverse?lat=48.8584&lon=2.2945&limit=1', clients: 'geopy Photon' },
  { example: '/reverse?lon=2.2945&lat=48.8584&lang=en&radius=1&key=K', clients: 'photon.komoot.io examples' },
  {
    example: '/reverse?lat=48.8584&lon=2.2945&layer=city&osm_tag=place&distance_sort=true',
    clients: 'Photon documentation (layer, osm_tag, distance_sort ignored)',
  },
  { example: '/reverse/?lat=48.8584&lon=2.2945', clients: 'trailing slash' },
];

/** Parameters read once; the others Photon documents (lang, limit, radius, layer, osm_tag...) are ignored. */
const SINGLE = ['lat', 'lon'] as const;

/**
 * `/api?q=` (issue 11): `limit` (default 10, at most 50), `lang`, `lat`+`lon` (a point to prefer), `bbox`
 * (minLon,minLat,maxLon,maxLat); Photon's other filters (osm_tag, layer) are accepted and not applied.
 */
function parseSearch(q: Query): ParseResult<PhotonState> {
  const v: Record<string, string | undefined> = {};
  for (const name of ['q', 'limit', 'lang', 'lat', 'lon', 'bbox']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const t = searchText(v['q'], 'q');
  if (!t.ok) return refuse('invalid_parameter', t.parameter, t.detail);
  const limit = searchLimit(v['limit'], 'limit', 10);
  if (!limit.ok) return refuse('invalid_parameter', limit.parameter, limit.detail);
  const lang = searchLanguage(v['lang'], 'lang');
  if (!lang.ok) return refuse('invalid_parameter', lang.parameter, lang.detail);
  let focus: { lat: number; lon: number } | null = null;
  if (v['lat'] !== undefined || v['lon'] !== undefined) {
    const point = parseLatLon(v['lat'], v['lon'], { lat: 'lat', lon: 'lon' });
    if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
    focus = { lat: point.lat, lon: point.lon };
  }
  const bounds = searchBounds(v['bbox'], 'bbox', 'lonlat');
  if (!bounds.ok) return refuse('invalid_parameter', bounds.parameter, bounds.detail);
  const call = searchCall(t.value, { limit: limit.value, language: lang.value, focus, bounds: bounds.value });
  return { ok: true, request: { call, state: { query: focus ?? { lat: 0, lon: 0 } } } };
}

/** A search answer: Photon's FeatureCollection, best first (`extent` from the result's extent); empty when none. */
function renderSearch(_state: PhotonState, a: SearchResults): AdapterResponse {
  const features = a.results.map((r) => {
    const p = resultPoint(r);
    const props = properties(r);
    // Photon's extent is [minLon, maxLat, maxLon, minLat].
    if (r.bbox !== null) props['extent'] = [r.bbox[0], r.bbox[3], r.bbox[2], r.bbox[1]];
    return { type: 'Feature', geometry: { type: 'Point', coordinates: [p.lon, p.lat] }, properties: props };
  });
  return json(200, { type: 'FeatureCollection', features, attribution: a.attribution });
}

function parse(req: AdapterRequest): ParseResult<PhotonState> {
  const search = (PHOTON_PATHS.search as readonly string[]).includes(req.path);
  if (!search && !(PHOTON_PATHS.reverse as readonly string[]).includes(req.path)) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  if (search) return parseSearch(q);
  const values: Record<string, string | undefined> = {};
  for (const name of SINGLE) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    values[name] = read.value;
  }
  const point = parseLatLon(values['lat'], values['lon'], { lat: 'lat', lon: 'lon' });
  if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
  const state: PhotonState = { query: { lat: point.lat, lon: point.lon } };
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state } };
}

/** Photon's flat properties for the record's place (a locality, else the country). */
function properties(r: ReverseRecord): Record<string, unknown> {
  const [s, n, w, e] = smallBox(r);
  const city = r.locality !== null;
  const street = streetOf(r);
  const number = houseNumberOf(r);
  // A street-level record (D25 connectors) is a house or a street feature, as Photon answers them.
  const type = number ? 'house' : street ? 'street' : city ? 'city' : 'country';
  return compact({
    osm_type: street ? 'W' : 'N',
    osm_id: placeNumber(r),
    osm_key: street && !number ? 'highway' : 'place',
    osm_value: number ? 'house' : street ? 'residential' : city ? 'city' : 'country',
    type,
    name: number ? null : (street ?? r.locality ?? r.country),
    housenumber: number,
    street: number ? street : null,
    district: suburbOf(r),
    city: r.locality,
    county: r.county,
    state: r.region,
    postcode: r.postcode,
    country: r.country,
    countrycode: r.countryCode,
    extent: [w, n, e, s],
  });
}

function renderReverse(_state: PhotonState, r: ReverseRecord): AdapterResponse {
  const p = resultPoint(r);
  const features =
    r.locality === null && r.country === null
      ? []
      : [
          {
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [p.lon, p.lat] },
            properties: properties(r),
          },
        ];
  return json(200, { type: 'FeatureCollection', features, attribution: r.attribution });
}

/** Renders a refusal as `{"message"}`; `not_found` with a parsed request is Photon's empty FeatureCollection. */
function renderError(
  state: PhotonState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) return json(200, { type: 'FeatureCollection', features: [] });
  const row = PHOTON_ERRORS[code];
  return json(row.status, { message: withTopUp(detail || row.message, facts) });
}

/** The Photon adapter. */
export const photon: Adapter<PhotonState> = {
  name: 'photon',
  credentialParams: ['key'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: PhotonState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

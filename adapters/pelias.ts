/**
 * Drop-in host for Pelias clients (geocode.earth and self-hosted Pelias): `GET /v1/reverse?point.lat=&point.lon=`
 * with the key in `api_key`, answered as Pelias's GeoJSON FeatureCollection with its `geocoding` envelope
 * (attribution, query, errors). Forward search (`/v1/search`, `/v1/search/structured`, `/v1/autocomplete`) is
 * refused in Pelias's error envelope with 400 until the backend can search. Refusals follow geocode.earth: 401
 * without or with a bad key, 403 over the plan limit (no credit), 429 with the rate-limit headers the gateway adds.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import { parseLatLon } from './common/coords';
import { alpha3 } from './common/country';
import { queryCredentials } from './common/credentials';
import type { ErrorTable } from './common/parse';
import { methodRefusal, once, refuse } from './common/parse';
import { compact, placeNumber, resultPoint, smallBox } from './common/place';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult } from './types';
import { houseNumberOf, streetLine, streetOf, suburbOf } from './common/street';

/** The point as Pelias echoes it in `geocoding.query`. */
export interface PeliasState {
  query: { 'point.lat': number; 'point.lon': number };
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
  quota_exceeded: { status: 429, error: 'Too Many Requests: daily limit exceeded' },
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

/** The accepted request forms: reverse, and the search endpoints refused in Pelias's shape. */
export const PELIAS_PATHS = {
  reverse: ['/v1/reverse'],
  search: ['/v1/search', '/v1/search/structured', '/v1/autocomplete'],
} as const;

const ENGINE = { name: 'Pelias', author: 'Mapzen', version: '1.0' };

function parse(req: AdapterRequest): ParseResult<PeliasState> {
  const search = (PELIAS_PATHS.search as readonly string[]).includes(req.path);
  if (!search && !(PELIAS_PATHS.reverse as readonly string[]).includes(req.path)) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  if (search) return refuse('invalid_parameter', 'text', 'forward search is not available on this host yet');
  const q = parseQuery(req.query);
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
  _f: ErrorFacts,
): AdapterResponse {
  const query = state?.query ?? {};
  if (code === 'not_found' && state !== null) {
    return json(200, { geocoding: envelope(undefined, query), type: 'FeatureCollection', features: [] });
  }
  const row = PELIAS_ERRORS[code];
  return json(row.status, {
    geocoding: envelope(undefined, query, [detail || row.error]),
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
  renderIp: (_s: PeliasState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

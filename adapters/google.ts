/**
 * Drop-in host for Google Geocoding API clients: `GET /maps/api/geocode/json?latlng=lat,lng&key=`.
 * Google answers errors with HTTP 200 and the error in the body's `status` (providers.md 1.1); so does this host.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import { parseLatLonPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable } from './common/parse';
import { methodRefusal, once, refuse } from './common/parse';
import { placeNumber, regionLetters, resultPoint } from './common/place';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult } from './types';

/** What rendering needs to remember: whether the result_type / location_type filters admit our locality result. */
export interface GoogleState {
  filtersMatch: boolean;
}

/** A Google body status with the HTTP status it travels with (200 except for unknown paths). */
export interface GoogleError {
  http: number;
  status:
    | 'REQUEST_DENIED'
    | 'OVER_DAILY_LIMIT'
    | 'OVER_QUERY_LIMIT'
    | 'INVALID_REQUEST'
    | 'NOT_FOUND'
    | 'UNKNOWN_ERROR';
  message: string;
}

/** D24: each gateway code as Google's nearest body status. */
export const GOOGLE_ERRORS: ErrorTable<GoogleError> = {
  missing_key: {
    http: 200,
    status: 'REQUEST_DENIED',
    message: 'You must use an API key to authenticate each request.',
  },
  invalid_key: { http: 200, status: 'REQUEST_DENIED', message: 'The provided API key is invalid.' },
  key_revoked: { http: 200, status: 'REQUEST_DENIED', message: 'The provided API key has been revoked.' },
  no_credits: {
    http: 200,
    status: 'OVER_DAILY_LIMIT',
    message: 'The free allowance is used and no credit is left.',
  },
  key_ip_limit: {
    http: 200,
    status: 'REQUEST_DENIED',
    message: 'This IP address is not authorized to use this API key.',
  },
  account_ip_limit: {
    http: 200,
    status: 'REQUEST_DENIED',
    message: 'This IP address is not authorized for this account.',
  },
  account_suspended: { http: 200, status: 'REQUEST_DENIED', message: 'The account is suspended.' },
  quota_exceeded: { http: 200, status: 'OVER_QUERY_LIMIT', message: 'You are over your daily quota.' },
  conflicting_credentials: {
    http: 200,
    status: 'INVALID_REQUEST',
    message: 'The request names two different keys.',
  },
  invalid_parameter: { http: 200, status: 'INVALID_REQUEST', message: 'Invalid request.' },
  invalid_forwarded: { http: 200, status: 'INVALID_REQUEST', message: 'Invalid request.' },
  ipv4_required: { http: 200, status: 'INVALID_REQUEST', message: 'An IPv4 address is required.' },
  not_found: { http: 404, status: 'NOT_FOUND', message: 'Unknown path.' },
  method_not_allowed: { http: 200, status: 'INVALID_REQUEST', message: 'Only GET is served.' },
  backend_unavailable: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server error; the request may succeed if you try again.',
  },
  backend_timeout: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server timeout; the request may succeed if you try again.',
  },
  store_unavailable: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server error; the request may succeed if you try again.',
  },
  internal: {
    http: 200,
    status: 'UNKNOWN_ERROR',
    message: 'Server error; the request may succeed if you try again.',
  },
};

const PATH = '/maps/api/geocode/json';

function listParam(value: string | undefined): string[] | undefined {
  return value === undefined || value === '' ? undefined : value.split('|').map((s) => s.trim());
}

function parse(req: AdapterRequest): ParseResult<GoogleState> {
  if (req.path !== PATH) {
    return req.path === '/maps/api/geocode/xml'
      ? refuse('invalid_parameter', 'output', 'only json output is served')
      : null;
  }
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  const latlng = once(q, 'latlng');
  if ('refusal' in latlng) return latlng.refusal;
  if (latlng.value === undefined && (q.has('address') || q.has('place_id') || q.has('components'))) {
    return refuse('invalid_parameter', 'latlng', 'only reverse geocoding (latlng) is served');
  }
  const point = parseLatLonPair(latlng.value, 'latlng', false);
  if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
  const types = listParam(q.get('result_type')?.[0]);
  const locationTypes = listParam(q.get('location_type')?.[0]);
  const filtersMatch =
    (types === undefined || types.includes('locality') || types.includes('political')) &&
    (locationTypes === undefined || locationTypes.includes('APPROXIMATE'));
  return {
    ok: true,
    request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state: { filtersMatch } },
  };
}

function addressComponents(r: ReverseRecord): { long_name: string; short_name: string; types: string[] }[] {
  const out: { long_name: string; short_name: string; types: string[] }[] = [];
  if (r.locality)
    out.push({ long_name: r.locality, short_name: r.locality, types: ['locality', 'political'] });
  if (r.county)
    out.push({
      long_name: r.county,
      short_name: r.county,
      types: ['administrative_area_level_2', 'political'],
    });
  if (r.region) {
    out.push({
      long_name: r.region,
      short_name: regionLetters(r) ?? r.region,
      types: ['administrative_area_level_1', 'political'],
    });
  }
  if (r.country && r.countryCode)
    out.push({ long_name: r.country, short_name: r.countryCode, types: ['country', 'political'] });
  if (r.postcode) out.push({ long_name: r.postcode, short_name: r.postcode, types: ['postal_code'] });
  return out;
}

function renderReverse(state: GoogleState, r: ReverseRecord): AdapterResponse {
  const attributions = [r.attribution];
  if (!state.filtersMatch || (r.locality === null && r.countryCode === null)) {
    return json(200, { html_attributions: attributions, results: [], status: 'ZERO_RESULTS' });
  }
  const p = resultPoint(r);
  const result = {
    address_components: addressComponents(r),
    formatted_address: r.displayName,
    geometry: {
      location: { lat: p.lat, lng: p.lon },
      location_type: 'APPROXIMATE',
      viewport: {
        northeast: { lat: p.lat + 0.05, lng: p.lon + 0.05 },
        southwest: { lat: p.lat - 0.05, lng: p.lon - 0.05 },
      },
    },
    place_id: `geogate.${placeNumber(r).toString(36)}`,
    types: r.locality ? ['locality', 'political'] : ['country', 'political'],
  };
  return json(200, { html_attributions: attributions, results: [result], status: 'OK' });
}

/**
 * Renders a refusal. `not_found` with a parsed request is the backend's "no result" (an unknown path has no state),
 * which Google answers as ZERO_RESULTS.
 */
function renderError(
  state: GoogleState | null,
  code: GatewayCode,
  detail: string,
  _f: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null)
    return json(200, { html_attributions: [], results: [], status: 'ZERO_RESULTS' });
  const row = GOOGLE_ERRORS[code];
  return json(row.http, { error_message: detail || row.message, results: [], status: row.status });
}

/** The Google adapter. */
export const google: Adapter<GoogleState> = {
  name: 'google',
  credentialParams: ['key', 'client', 'signature'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse,
  renderIp: (_s: GoogleState, _r: IpRecord) =>
    renderError(null, 'not_found', 'IP lookups are not served here', {}),
  renderError,
};

/**
 * Drop-in host for positionstack clients: `GET /v1/reverse?access_key=&query=lat,lng`. Errors follow the apilayer
 * document: `{"error":{"code":"<type>","message","context"}}` with real 4xx statuses (providers.md 1.12, ⚠ conflict
 * with the classic `success:false` envelope, resolved in favour of the doc).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import { alpha3, continentOf } from './common/country';
import { parseLatLonPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { distanceMetres, regionLetters, resultPoint } from './common/place';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult } from './types';
import { houseNumberOf, streetLine, streetOf, suburbOf } from './common/street';

/** positionstack needs no rendering options. */
export type PositionstackState = Record<string, never>;

/** A positionstack error: HTTP status and the error `code` slug. */
export interface PositionstackError {
  status: number;
  code: string;
}

/** D24: each gateway code as a positionstack error (slugs from the apilayer docs; `access_restricted` is ours). */
export const POSITIONSTACK_ERRORS: ErrorTable<PositionstackError> = {
  missing_key: { status: 401, code: 'missing_access_key' },
  invalid_key: { status: 401, code: 'invalid_access_key' },
  key_revoked: { status: 401, code: 'inactive_user' },
  no_credits: { status: 429, code: 'usage_limit_reached' },
  key_ip_limit: { status: 403, code: 'access_restricted' },
  account_ip_limit: { status: 403, code: 'access_restricted' },
  account_suspended: { status: 401, code: 'inactive_user' },
  quota_exceeded: { status: 429, code: 'usage_limit_reached' },
  conflicting_credentials: { status: 422, code: 'validation_error' },
  invalid_parameter: { status: 422, code: 'validation_error' },
  invalid_forwarded: { status: 422, code: 'validation_error' },
  ipv4_required: { status: 422, code: 'validation_error' },
  not_found: { status: 404, code: 'invalid_api_function' },
  search_unavailable: { status: 422, code: 'validation_error' },
  method_not_allowed: { status: 405, code: 'invalid_api_function' },
  backend_unavailable: { status: 502, code: 'internal_error' },
  backend_timeout: { status: 504, code: 'internal_error' },
  store_unavailable: { status: 503, code: 'internal_error' },
  internal: { status: 500, code: 'internal_error' },
};

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const POSITIONSTACK_FORMS: readonly RequestForm[] = [
  { example: '/v1/reverse?access_key=K&query=48.8584,2.2945', clients: 'positionstack docs' },
  { example: '/v1/reverse?access_key=K&query=48.8584%2C2.2945&output=json&limit=1', clients: 'output=json' },
  { example: '/v1/reverse/?access_key=K&query=48.8584,2.2945', clients: 'trailing slash' },
];

function parse(req: AdapterRequest): ParseResult<PositionstackState> {
  if (routePath(req.path) !== '/v1/reverse') return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  const text = once(q, 'query');
  if ('refusal' in text) return text.refusal;
  const point = parseLatLonPair(text.value, 'query');
  if (!point.ok) return refuse('invalid_parameter', 'query', point.detail);
  const output = q.get('output')?.[0];
  if (output !== undefined && output !== 'json')
    return refuse('invalid_parameter', 'output', 'output must be json');
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state: {} } };
}

function renderReverse(_s: PositionstackState, r: ReverseRecord): AdapterResponse {
  if (r.locality === null && r.countryCode === null)
    return json(200, { data: [], attribution: r.attribution });
  const p = resultPoint(r);
  const item = {
    latitude: p.lat,
    longitude: p.lon,
    type: houseNumberOf(r) ? 'address' : streetOf(r) ? 'street' : r.locality ? 'locality' : 'country',
    distance: distanceMetres(r),
    name: streetLine(r) ?? r.locality ?? r.country,
    number: houseNumberOf(r),
    postal_code: r.postcode,
    street: streetOf(r),
    confidence: r.locality || streetOf(r) ? 1 : 0.5,
    region: r.region,
    region_code: regionLetters(r),
    county: r.county,
    locality: r.locality,
    administrative_area: null,
    neighbourhood: suburbOf(r),
    country: r.country,
    country_code: alpha3(r.countryCode),
    continent: continentOf(r.countryCode, p.lat, p.lon)?.name ?? null,
    label: r.displayName,
  };
  return json(200, { data: [item], attribution: r.attribution });
}

/** Renders a refusal; `not_found` with a parsed request is the backend's "no result": 200 with no data. */
function renderError(
  state: PositionstackState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) return json(200, { data: [] });
  const row = POSITIONSTACK_ERRORS[code];
  const context = row.status === 422 && facts.parameter ? { [facts.parameter]: [detail] } : undefined;
  return json(row.status, {
    error: { code: row.code, message: detail || row.code, ...(context ? { context } : {}) },
  });
}

/** The positionstack adapter. */
export const positionstack: Adapter<PositionstackState> = {
  name: 'positionstack',
  credentialParams: ['access_key'],
  providerCredentials: (req) => queryCredentials(req, ['access_key']),
  parse,
  renderReverse,
  renderIp: (_s: PositionstackState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

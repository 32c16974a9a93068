/**
 * Drop-in host for positionstack clients: `GET /v1/reverse?access_key=&query=lat,lng`. Errors follow the apilayer
 * document: `{"error":{"code":"<type>","message","context"}}` with real 4xx statuses (providers.md 1.12, ⚠ conflict
 * with the classic `success:false` envelope, resolved in favour of the doc).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { alpha2Of, alpha3, continentOf } from './common/country';
import { parseLatLonPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { distanceMetres, regionLetters, resultPoint } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import { searchCall, searchLanguage, searchLimit, searchText } from './common/search';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult, SearchResults } from './types';
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
  key_restricted: { status: 403, code: 'access_restricted' },
  quota_exceeded: { status: 429, code: 'usage_limit_reached' },
  rate_limited: { status: 429, code: 'rate_limit_reached' },
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

/**
 * `/v1/forward?query=` (issue 11): `limit` (default 10, at most 50 here), `country` (alpha-2 or alpha-3 list),
 * `language`, `output=json`. Other parameters are accepted and not applied.
 */
function parseForward(q: Query): ParseResult<PositionstackState> {
  const v: Record<string, string | undefined> = {};
  for (const name of ['query', 'limit', 'country', 'language', 'output']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  if (v['output'] !== undefined && v['output'] !== 'json')
    return refuse('invalid_parameter', 'output', 'output must be json');
  const t = searchText(v['query'], 'query');
  if (!t.ok) return refuse('invalid_parameter', t.parameter, t.detail);
  const limit = searchLimit(v['limit'], 'limit', 10);
  if (!limit.ok) return refuse('invalid_parameter', limit.parameter, limit.detail);
  const lang = searchLanguage(v['language'], 'language');
  if (!lang.ok) return refuse('invalid_parameter', lang.parameter, lang.detail);
  let countries: string[] | null = null;
  if (v['country'] !== undefined && v['country'] !== '') {
    countries = [];
    for (const c of v['country'].split(',')) {
      const two = alpha2Of(c.trim());
      if (two === null) return refuse('invalid_parameter', 'country', `${c} is not a country code`);
      if (!countries.includes(two)) countries.push(two);
    }
  }
  const call = searchCall(t.value, { limit: limit.value, language: lang.value, countries });
  return { ok: true, request: { call, state: {} } };
}

function parse(req: AdapterRequest): ParseResult<PositionstackState> {
  const route = routePath(req.path);
  if (route !== '/v1/reverse' && route !== '/v1/forward') return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  if (route === '/v1/forward') return parseForward(q);
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
  return json(200, { data: [item(r)], attribution: r.attribution });
}

/** A forward lookup's answer: `data` best first with the backend's `confidence` (no distance); `[]` when none. */
function renderSearch(_s: PositionstackState, a: SearchResults): AdapterResponse {
  const data = a.results.map((r) => ({ ...item(r), distance: null, confidence: r.relevance ?? 1 }));
  return json(200, { data, attribution: a.attribution });
}

/** One positionstack result of a record. */
function item(r: ReverseRecord): Record<string, unknown> {
  const p = resultPoint(r);
  return {
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
    error: { code: row.code, message: withTopUp(detail || row.code, facts), ...(context ? { context } : {}) },
  });
}

/** The positionstack adapter. */
export const positionstack: Adapter<PositionstackState> = {
  name: 'positionstack',
  credentialParams: ['access_key'],
  providerCredentials: (req) => queryCredentials(req, ['access_key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: PositionstackState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

/**
 * Drop-in host for OpenCage clients: `GET /geocode/v1/json?q=lat,lng&key=` (also `lat, lng` and `lat+lng`, as
 * node-geocoder sends it). Success and errors share OpenCage's envelope with `status:{code,message}` (providers.md 1.5).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { alpha3 } from './common/country';
import { parseLatLonPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, regionLetters, resultPoint, smallBox } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import {
  searchBounds,
  searchCall,
  searchCountries,
  searchLanguage,
  searchLimit,
  searchPoint,
  searchText,
  type Checked,
} from './common/search';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult, Rate, SearchResults } from './types';
import { houseNumberOf, streetOf, suburbOf } from './common/street';

/** Rendering options: `no_annotations=1` drops the annotations block. */
export interface OpencageState {
  annotations: boolean;
}

/** An OpenCage error: HTTP status = `status.code`, and `status.message`. */
export interface OpencageError {
  status: number;
  message: string;
}

/**
 * D24: each gateway code as OpenCage's documented status. OpenCage's 402 "quota exceeded" is its answer to a used-up
 * free daily quota, so both the daily allowance and no credits map to it; 403 covers disabled keys and rejected IPs.
 */
export const OPENCAGE_ERRORS: ErrorTable<OpencageError> = {
  missing_key: { status: 401, message: 'missing API key' },
  invalid_key: { status: 401, message: 'invalid API key' },
  key_revoked: { status: 403, message: 'suspended' },
  no_credits: { status: 402, message: 'quota exceeded' },
  key_ip_limit: { status: 403, message: 'IP address rejected' },
  account_ip_limit: { status: 403, message: 'IP address rejected' },
  account_suspended: { status: 403, message: 'suspended' },
  key_restricted: { status: 403, message: 'forbidden' },
  quota_exceeded: { status: 402, message: 'quota exceeded' },
  rate_limited: { status: 429, message: 'too many requests' },
  conflicting_credentials: { status: 400, message: 'invalid request' },
  invalid_parameter: { status: 400, message: 'invalid request' },
  invalid_forwarded: { status: 400, message: 'invalid request' },
  ipv4_required: { status: 400, message: 'invalid request' },
  not_found: { status: 404, message: 'invalid endpoint' },
  search_unavailable: { status: 400, message: 'invalid request' },
  method_not_allowed: { status: 405, message: 'method not allowed' },
  backend_unavailable: { status: 502, message: 'bad gateway' },
  backend_timeout: { status: 504, message: 'timeout' },
  store_unavailable: { status: 503, message: 'service unavailable' },
  internal: { status: 500, message: 'internal server error' },
};

const ENVELOPE = {
  documentation: 'https://opencagedata.com/api',
  thanks: 'For using an OpenCage Data API compatible host',
};

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const OPENCAGE_FORMS: readonly RequestForm[] = [
  {
    example: '/geocode/v1/json?q=48.8584,2.2945&key=K',
    clients: 'opencage-api-client, geopy OpenCage (opencage.py:24)',
  },
  { example: '/geocode/v1/json?key=K&q=48.8584+2.2945', clients: 'node-geocoder opencage (space)' },
  { example: '/geocode/v1/json?q=48.8584%2C%202.2945&key=K', clients: 'comma and space, encoded' },
  { example: '/geocode/v1/json/?q=48.8584,2.2945&key=K', clients: 'trailing slash' },
];

function parse(req: AdapterRequest): ParseResult<OpencageState> {
  if (routePath(req.path) !== '/geocode/v1/json') return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  const text = once(q, 'q');
  if ('refusal' in text) return text.refusal;
  const point = parseLatLonPair(text.value, 'q', true);
  // A text with a letter is a forward lookup (issue 11); anything else must be a point.
  if (!point.ok && text.value !== undefined && /\p{L}/u.test(text.value)) return parseForward(text.value, q);
  if (!point.ok) return refuse('invalid_parameter', 'q', point.detail);
  const state = { annotations: q.get('no_annotations')?.[0] !== '1' };
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state } };
}

/**
 * A forward lookup: `limit` (1..100, default 10; the gateway answers at most 50), `countrycode` (alpha-2 list),
 * `language`, `proximity` (lat,lng), `bounds` (min lng,min lat,max lng,max lat), `no_annotations` (OpenCage's API).
 */
function parseForward(text: string, q: Query): ParseResult<OpencageState> {
  const v: Record<string, string | undefined> = {};
  for (const name of ['limit', 'countrycode', 'language', 'proximity', 'bounds']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const t = searchText(text, 'q');
  const limit = searchLimit(v['limit'], 'limit', 10);
  const countries = searchCountries(v['countrycode'], 'countrycode');
  const language = searchLanguage(v['language'] === 'native' ? undefined : v['language'], 'language');
  const focus = searchPoint(v['proximity'], 'proximity');
  const bounds = searchBounds(v['bounds'], 'bounds', 'lonlat');
  for (const c of [t, limit, countries, language, focus, bounds] as Checked<unknown>[])
    if (!c.ok) return refuse('invalid_parameter', c.parameter, c.detail);
  const value = <T>(c: Checked<T>): T => (c as { value: T }).value;
  const call = searchCall(value(t), {
    limit: value(limit),
    countries: value(countries),
    language: value(language),
    focus: value(focus),
    bounds: value(bounds),
  });
  return { ok: true, request: { call, state: { annotations: q.get('no_annotations')?.[0] !== '1' } } };
}

/** A forward lookup's answer: OpenCage's results best first (`bounds` from the extent), total_results. */
function renderSearch(state: OpencageState, a: SearchResults): AdapterResponse {
  const results = a.results.map((r) => {
    const one = result(state, r);
    if (r.bbox === null) return one;
    const [w, s, e, n] = r.bbox;
    return { ...one, bounds: { northeast: { lat: n, lng: e }, southwest: { lat: s, lng: w } } };
  });
  return json(200, {
    ...ENVELOPE,
    licenses: [{ name: a.attribution }],
    results,
    status: { code: 200, message: 'OK' },
    total_results: results.length,
  });
}

function result(state: OpencageState, r: ReverseRecord): Record<string, unknown> {
  const p = resultPoint(r);
  const [s, n, w, e] = smallBox(r);
  const number = houseNumberOf(r);
  const street = streetOf(r);
  const components = compact({
    _type: number ? 'building' : street ? 'road' : r.locality ? 'city' : 'country',
    _category: street ? 'building' : 'place',
    house_number: number,
    road: street,
    suburb: suburbOf(r),
    'ISO_3166-1_alpha-2': r.countryCode,
    'ISO_3166-1_alpha-3': alpha3(r.countryCode),
    city: r.locality,
    county: r.county,
    state: r.region,
    state_code: regionLetters(r),
    postcode: r.postcode,
    country: r.country,
    country_code: r.countryCode?.toLowerCase(),
  });
  return {
    ...(state.annotations && r.timezone ? { annotations: { timezone: { name: r.timezone } } } : {}),
    bounds: { northeast: { lat: n, lng: e }, southwest: { lat: s, lng: w } },
    components,
    confidence: number ? 10 : street ? 9 : r.locality ? 5 : 1,
    formatted: r.displayName,
    geometry: { lat: p.lat, lng: p.lon },
  };
}

function renderReverse(state: OpencageState, r: ReverseRecord): AdapterResponse {
  const found = r.locality !== null || r.countryCode !== null;
  return json(200, {
    ...ENVELOPE,
    licenses: [{ name: r.attribution }],
    results: found ? [result(state, r)] : [],
    status: { code: 200, message: 'OK' },
    total_results: found ? 1 : 0,
  });
}

/** Renders a refusal in the envelope; `not_found` with a parsed request is the backend's "no result": 200, no results. */
function renderError(
  state: OpencageState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) {
    return json(200, {
      ...ENVELOPE,
      licenses: [],
      results: [],
      status: { code: 200, message: 'OK' },
      total_results: 0,
    });
  }
  const row = OPENCAGE_ERRORS[code];
  const message = withTopUp(detail ? `${row.message}: ${detail}` : row.message, facts);
  return json(row.status, {
    ...ENVELOPE,
    licenses: [],
    results: [],
    status: { code: row.status, message },
    total_results: 0,
  });
}

/**
 * OpenCage's `rate` object and `X-RateLimit-Limit/Remaining/Reset` headers, which it sends to keys with a free
 * allowance and leaves out for subscriptions (issue 16 item 4); the gateway calls this only for the former. The member
 * is spliced into the rendered JSON, so the body is not parsed again.
 */
function withRate(res: AdapterResponse, rate: Rate): AdapterResponse {
  if (!res.body.startsWith('{')) return res;
  const member = `"rate":${JSON.stringify({ limit: rate.limit, remaining: rate.remaining, reset: rate.reset })}`;
  return {
    status: res.status,
    headers: {
      ...res.headers,
      'x-ratelimit-limit': String(rate.limit),
      'x-ratelimit-remaining': String(rate.remaining),
      'x-ratelimit-reset': String(rate.reset),
    },
    body: res.body === '{}' ? `{${member}}` : `{${member},${res.body.slice(1)}`,
  };
}

/** The OpenCage adapter. */
export const opencage: Adapter<OpencageState> = {
  name: 'opencage',
  credentialParams: ['key'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: OpencageState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
  withRate,
};

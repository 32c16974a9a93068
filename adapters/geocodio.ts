/**
 * Drop-in host for Geocodio clients: `GET /v{version}/reverse?q=lat,lng` for `v1`, `v1.x` and `v2`. The credential is
 * the `api_key` query parameter (node-geocoder) or `Authorization: Bearer` (geocodio-library-node) (providers.md 1.11).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { parseLatLonPair } from './common/coords';
import { bearerCredential, queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { textsFrom } from './common/texts';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, regionLetters, resultPoint } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import { partsText, searchCall, searchLimit, searchText } from './common/search';
import type {
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParseResult,
  SearchParts,
  SearchResults,
} from './types';
import { houseNumberOf, streetLine, streetOf } from './common/street';

/** Geocodio needs no rendering options. */
export interface GeocodioState {
  /** The text of a forward lookup (echoed as `input.formatted_address`). */
  forward?: string;
}

/** A Geocodio error: status and `error` text. */
export interface GeocodioError {
  status: number;
  error: string;
}

/**
 * D24: each gateway code as a Geocodio error. Geocodio answers a used-up free daily allowance without billing, and
 * key problems, with 403 (providers.md 1.11), so the allowance and credit refusals are 403 too; bad input is 422.
 */
export const GEOCODIO_ERRORS: ErrorTable<GeocodioError> = {
  missing_key: { status: 403, error: 'Invalid API key' },
  invalid_key: { status: 403, error: 'Invalid API key' },
  key_revoked: { status: 403, error: 'Invalid API key' },
  no_credits: { status: 403, error: "You can't make this request as it is above your daily maximum." },
  key_ip_limit: { status: 403, error: 'This API key may not be used from this address right now.' },
  account_ip_limit: { status: 403, error: 'This account may not be used from this address right now.' },
  account_suspended: { status: 403, error: 'This account is suspended.' },
  key_restricted: { status: 403, error: 'This API key may not be used from this web page or address.' },
  quota_exceeded: { status: 403, error: "You can't make this request as it is above your daily maximum." },
  rate_limited: { status: 429, error: 'Too Many Requests' },
  conflicting_credentials: { status: 422, error: 'Conflicting API keys' },
  invalid_parameter: { status: 422, error: 'Invalid request' },
  invalid_forwarded: { status: 422, error: 'Invalid request' },
  ipv4_required: { status: 422, error: 'An IPv4 address is required' },
  not_found: { status: 404, error: 'Not found' },
  search_unavailable: { status: 422, error: 'Invalid request' },
  method_not_allowed: { status: 405, error: 'Method not allowed' },
  backend_unavailable: { status: 502, error: 'Server error' },
  backend_timeout: { status: 504, error: 'Server timeout' },
  store_unavailable: { status: 503, error: 'Server error' },
  internal: { status: 500, error: 'Server error' },
};

/**
 * Texts Geocodio's clients read (docs/providers/geocodio.md): geopy raises GeocoderQuotaExceeded only when a 403 body's
 * `error` contains "You can't make this request as it is above your daily maximum." (geocodio.py:222-227), so that
 * sentence leads; the gateway's message follows it.
 */
export const GEOCODIO_TEXTS = textsFrom(GEOCODIO_ERRORS, 'error', {
  quota_exceeded: 'appended',
  no_credits: 'appended',
});

const PATH = /^\/v(1|1\.\d+|2)\/reverse$/;
const FORWARD = /^\/v(1|1\.\d+|2)\/geocode$/;
/** Geocodio's structured fields → the canonical parts. */
const STRUCTURED: readonly [string, keyof SearchParts][] = [
  ['street', 'street'],
  ['city', 'city'],
  ['state', 'state'],
  ['postal_code', 'postcode'],
  ['country', 'country'],
];

/**
 * `/v1.x/geocode` (issue 11): `q`, or the structured fields (street, city, state, postal_code, country; not with q);
 * `limit` (default 10, at most 50 here). `country` is a part of the address, as Geocodio reads it, not a filter.
 */
function parseForward(q: Query): ParseResult<GeocodioState> {
  const v: Record<string, string | undefined> = {};
  for (const name of ['q', 'limit', ...STRUCTURED.map(([n]) => n)]) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const parts: SearchParts = {};
  for (const [name, key] of STRUCTURED) if (v[name]?.trim()) parts[key] = (v[name] as string).trim();
  const structured = Object.keys(parts).length > 0;
  if (structured && v['q'] !== undefined)
    return refuse(
      'invalid_parameter',
      'q',
      'q cannot be combined with street, city, state, postal_code or country',
    );
  const t = searchText(structured ? partsText(parts) : v['q'], 'q');
  if (!t.ok) return refuse('invalid_parameter', t.parameter, t.detail);
  const limit = searchLimit(v['limit'], 'limit', 10);
  if (!limit.ok) return refuse('invalid_parameter', limit.parameter, limit.detail);
  const call = searchCall(t.value, { parts: structured ? parts : null, limit: limit.value });
  return { ok: true, request: { call, state: { forward: t.value } } };
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const GEOCODIO_FORMS: readonly RequestForm[] = [
  { example: '/v1.7/reverse?q=48.8584,2.2945&api_key=K', clients: 'node-geocoder geocodio' },
  { example: '/v1.6/reverse?q=48.8584%2C2.2945&api_key=K', clients: 'geopy Geocodio (geocodio.py:37)' },
  { example: '/v1/reverse?q=48.8584,2.2945', clients: 'geocodio-library-node (Authorization: Bearer)' },
  { example: '/v2/reverse?q=48.8584,2.2945&api_key=K', clients: 'v2 beta' },
  { example: '/v1.11/reverse/?q=48.8584,2.2945&api_key=K', clients: 'trailing slash' },
];

function parse(req: AdapterRequest): ParseResult<GeocodioState> {
  const route = routePath(req.path);
  const forward = FORWARD.test(route);
  if (!forward && !PATH.test(route)) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  if (forward) return parseForward(parseQuery(req.query));
  const text = once(parseQuery(req.query), 'q');
  if ('refusal' in text) return text.refusal;
  const point = parseLatLonPair(text.value, 'q');
  if (!point.ok) return refuse('invalid_parameter', 'q', point.detail);
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state: {} } };
}

function renderReverse(_s: GeocodioState, r: ReverseRecord): AdapterResponse {
  if (r.locality === null && r.countryCode === null) return json(200, { results: [] });
  return json(200, { results: [result(r)] });
}

/** A forward lookup's answer: `input` (the text as received) and `results` best first with `accuracy`; `[]` when none. */
function renderSearch(state: GeocodioState, a: SearchResults): AdapterResponse {
  const results = a.results.map((r) => ({ ...result(r), accuracy: r.relevance ?? result(r).accuracy }));
  return json(200, { input: { formatted_address: state.forward ?? '' }, results });
}

/** One Geocodio result of a record. */
function result(r: ReverseRecord) {
  const p = resultPoint(r);
  const cityLine = [r.locality, [regionLetters(r) ?? r.region, r.postcode].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');
  return {
    address_components: compact({
      number: houseNumberOf(r),
      street: streetOf(r),
      formatted_street: streetOf(r),
      city: r.locality,
      county: r.county,
      state: regionLetters(r) ?? r.region,
      zip: r.postcode,
      country: r.countryCode,
    }),
    address_lines: [streetLine(r) ?? '', '', cityLine],
    formatted_address: r.displayName,
    location: { lat: p.lat, lng: p.lon },
    accuracy: houseNumberOf(r) ? 1 : streetOf(r) ? 0.8 : 0.5,
    accuracy_type: houseNumberOf(r) ? 'rooftop' : streetOf(r) ? 'street_center' : 'place',
    source: r.attribution,
  };
}

/**
 * Renders a refusal as Geocodio's `{"error"}` with its status, plus `results: []`: node-geocoder's `geocodio` reverse
 * reads `result.results.length` on every body without checking the status and otherwise throws inside bluebird
 * (uncaught exception, a promise that never settles); with it the client resolves `[]`. `not_found` with a parsed
 * request is the backend's "no result": 200 with no results.
 */
function renderError(
  state: GeocodioState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) return json(200, { results: [] });
  const row = GEOCODIO_ERRORS[code];
  return json(row.status, { error: withTopUp(detail || row.error, facts), results: [] });
}

/** The Geocodio adapter. */
export const geocodio: Adapter<GeocodioState> = {
  name: 'geocodio',
  credentialParams: ['api_key'],
  providerCredentials: (req) => [...queryCredentials(req, ['api_key']), ...bearerCredential(req)],
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: GeocodioState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
  clientTexts: GEOCODIO_TEXTS,
};

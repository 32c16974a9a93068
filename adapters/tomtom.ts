/**
 * Drop-in host for TomTom Search clients: `GET /search/2/reverseGeocode/{lat},{lon}.json?key=`. TomTom's error body
 * is uncertain (⚠ providers.md 1.3); we answer `{errorText, detailedError:{code,message}, httpStatusCode}`, the
 * Search API shape whose `detailedError` TomTom's own types declare. TomTom uses 403 for key and quota refusals and
 * 596 for an unknown service path.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { alpha2Of, alpha3 } from './common/country';
import { parseLatLon, splitPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import type { ClientTexts } from './common/texts';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, distanceMetres, placeNumber, regionLetters, resultPoint, smallBox } from './common/place';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import { searchCall, searchLanguage, searchLimit, searchText } from './common/search';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult, SearchResults } from './types';
import { houseNumberOf, streetOf, suburbOf } from './common/street';

/** TomTom needs no rendering options. */
export interface TomtomState {
  /** The search text of a forward lookup (echoed in `summary.query`). */
  forward?: string;
}

/** A TomTom error: HTTP status and the `detailedError.code`. */
export interface TomtomError {
  status: number;
  code: string;
}

/** D24: each gateway code as a TomTom error. */
export const TOMTOM_ERRORS: ErrorTable<TomtomError> = {
  missing_key: { status: 403, code: 'Forbidden' },
  invalid_key: { status: 403, code: 'Forbidden' },
  key_revoked: { status: 403, code: 'Forbidden' },
  no_credits: { status: 403, code: 'AccountOverQuota' },
  key_ip_limit: { status: 403, code: 'Forbidden' },
  account_ip_limit: { status: 403, code: 'Forbidden' },
  account_suspended: { status: 403, code: 'AccountInactive' },
  key_restricted: { status: 403, code: 'Forbidden' },
  quota_exceeded: { status: 403, code: 'AccountOverRateLimit' },
  rate_limited: { status: 429, code: 'TooManyRequests' },
  conflicting_credentials: { status: 400, code: 'BadRequest' },
  invalid_parameter: { status: 400, code: 'BadRequest' },
  invalid_forwarded: { status: 400, code: 'BadRequest' },
  ipv4_required: { status: 400, code: 'BadRequest' },
  not_found: { status: 596, code: 'ServiceNotFound' },
  search_unavailable: { status: 400, code: 'BadRequest' },
  method_not_allowed: { status: 405, code: 'MethodNotAllowed' },
  backend_unavailable: { status: 502, code: 'BadGateway' },
  backend_timeout: { status: 504, code: 'GatewayTimeout' },
  store_unavailable: { status: 503, code: 'ServiceUnavailable' },
  internal: { status: 500, code: 'InternalServerError' },
};

/**
 * The text TomTom's clients read: geopy raises GeocoderQuotaExceeded only for an error body that contains "Developer
 * Over Qps" (tomtom.py:226), TomTom's own over-limit text; otherwise a 403 is "insufficient privileges". So the
 * allowance refusals lead with it, and the gateway's message follows (docs/providers/tomtom.md).
 */
export const TOMTOM_TEXTS: ClientTexts = {
  quota_exceeded: { text: 'Developer Over Qps', gateway: 'appended' },
  no_credits: { text: 'Developer Over Qps', gateway: 'appended' },
};

const PATH = /^\/search\/2\/reverseGeocode\/([^/]+)\.([a-z]+)$/;
const FORWARD = /^\/search\/2\/geocode\/([^/]+)\.([a-z]+)$/;

/**
 * `/search/2/geocode/{query}.json` (issue 11): `limit` (default 10, at most 50 here), `countrySet` (alpha-2 or
 * alpha-3 list), `language`, `lat`+`lon` (a point to prefer). Other parameters are accepted and not applied.
 */
function parseForward(text: string, ext: string, query: string): ParseResult<TomtomState> {
  if (ext !== 'json') return refuse('invalid_parameter', 'ext', 'only the json extension is served');
  const q = parseQuery(query);
  const v: Record<string, string | undefined> = {};
  for (const name of ['limit', 'countrySet', 'language', 'lat', 'lon']) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const t = searchText(text, 'query');
  if (!t.ok) return refuse('invalid_parameter', t.parameter, t.detail);
  const limit = searchLimit(v['limit'], 'limit', 10);
  if (!limit.ok) return refuse('invalid_parameter', limit.parameter, limit.detail);
  const lang = searchLanguage(v['language'], 'language');
  if (!lang.ok) return refuse('invalid_parameter', lang.parameter, lang.detail);
  let countries: string[] | null = null;
  if (v['countrySet'] !== undefined && v['countrySet'] !== '') {
    countries = [];
    for (const c of v['countrySet'].split(',')) {
      const two = alpha2Of(c.trim());
      if (two === null) return refuse('invalid_parameter', 'countrySet', `${c} is not a country code`);
      if (!countries.includes(two)) countries.push(two);
    }
  }
  let focus: { lat: number; lon: number } | null = null;
  if (v['lat'] !== undefined || v['lon'] !== undefined) {
    const point = parseLatLon(v['lat'], v['lon'], { lat: 'lat', lon: 'lon' });
    if (!point.ok) return refuse('invalid_parameter', point.parameter, point.detail);
    focus = { lat: point.lat, lon: point.lon };
  }
  const call = searchCall(t.value, { limit: limit.value, language: lang.value, countries, focus });
  return { ok: true, request: { call, state: { forward: t.value } } };
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const TOMTOM_FORMS: readonly RequestForm[] = [
  { example: '/search/2/reverseGeocode/48.8584,2.2945.json?key=K', clients: 'TomTom docs' },
  {
    example: '/search/2/reverseGeocode/48.8584%2C2.2945.json?key=K',
    clients: 'geopy TomTom (tomtom.py:21, position quoted)',
  },
  { example: '/search/2/reverseGeocode/48.8584,2.2945.json/?key=K', clients: 'trailing slash' },
];

function parse(req: AdapterRequest): ParseResult<TomtomState> {
  const route = routePath(req.path);
  const f = FORWARD.exec(route);
  const m = PATH.exec(route);
  if (!m && !f) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  if (f) return parseForward(f[1] as string, f[2] as string, req.query);
  if (!m) return null;
  if (m[2] !== 'json') return refuse('invalid_parameter', 'ext', 'only the json extension is served');
  const pair = splitPair(m[1] as string);
  if (pair === null) return refuse('invalid_parameter', 'position', 'position must be "latitude,longitude"');
  const point = parseLatLon(pair[0], pair[1], { lat: 'latitude', lon: 'longitude' });
  if (!point.ok) return refuse('invalid_parameter', 'position', `position: ${point.detail}`);
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state: {} } };
}

/** A forward lookup's answer: TomTom's `results` best first (score, type, viewport from the extent); none: `[]`. */
function renderSearch(state: TomtomState, a: SearchResults): AdapterResponse {
  const results = a.results.map((r, i) => {
    const p = resultPoint(r);
    const [w, s, e, n] = r.bbox ?? smallBoxWSEN(r);
    const number = houseNumberOf(r);
    const street = streetOf(r);
    return compact({
      type: number ? 'Point Address' : street ? 'Street' : 'Geography',
      id: `geogate-${placeNumber(r)}`,
      score: Math.round((r.relevance ?? 1) * 10000) / 1000 - i / 1000,
      entityType: number || street ? undefined : r.locality ? 'Municipality' : 'Country',
      address: tomtomAddress(r),
      position: { lat: p.lat, lon: p.lon },
      viewport: { topLeftPoint: { lat: n, lon: w }, btmRightPoint: { lat: s, lon: e } },
    });
  });
  return json(200, {
    summary: {
      query: (state.forward ?? '').toLowerCase(),
      queryType: 'NON_NEAR',
      queryTime: 0,
      numResults: results.length,
      offset: 0,
      totalResults: results.length,
    },
    results,
    attribution: a.attribution,
  });
}

/** The point's small box as [west, south, east, north]. */
function smallBoxWSEN(r: ReverseRecord): [number, number, number, number] {
  const [s, n, w, e] = smallBox(r);
  return [w, s, e, n];
}

/** TomTom's address object of a record. */
function tomtomAddress(r: ReverseRecord): Record<string, unknown> {
  return compact({
    streetNumber: houseNumberOf(r),
    streetName: streetOf(r),
    street: streetOf(r),
    municipalitySubdivision: suburbOf(r),
    municipality: r.locality,
    countrySecondarySubdivision: r.county,
    countrySubdivision: regionLetters(r) ?? r.region,
    countrySubdivisionName: r.region,
    postalCode: r.postcode,
    countryCode: r.countryCode,
    country: r.country,
    countryCodeISO3: alpha3(r.countryCode),
    freeformAddress: r.displayName,
    localName: r.locality,
  });
}

function renderReverse(_s: TomtomState, r: ReverseRecord): AdapterResponse {
  const found = r.locality !== null || r.countryCode !== null;
  const p = resultPoint(r);
  const address = tomtomAddress(r);
  const addresses = found
    ? [compact({ address, position: `${p.lat},${p.lon}`, distance: distanceMetres(r) })]
    : [];
  return json(200, {
    summary: { queryTime: 0, numResults: addresses.length },
    addresses,
    attribution: r.attribution,
  });
}

/** Renders a refusal; `not_found` with a parsed request is the backend's "no result": 200 with no addresses. */
function renderError(
  state: TomtomState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null)
    return json(200, { summary: { queryTime: 0, numResults: 0 }, addresses: [] });
  const row = TOMTOM_ERRORS[code];
  const message = withTopUp(detail || row.code, facts);
  return json(row.status, {
    errorText: message,
    detailedError: { code: row.code, message },
    httpStatusCode: row.status,
  });
}

/** The TomTom adapter. */
export const tomtom: Adapter<TomtomState> = {
  name: 'tomtom',
  credentialParams: ['key'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: TomtomState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
  clientTexts: TOMTOM_TEXTS,
};

/**
 * Drop-in host for HERE clients: Geocoding & Search v7 `GET /v1/revgeocode?at=lat,lng` and the legacy Geocoder 6.2
 * `GET /6.2/reversegeocode.json?pos=lat,lng[,radius]` (or `prox=`), which node-geocoder's `here` provider calls. The
 * credential is `apiKey`, also spelled `apikey` by real clients (providers.md 1.8).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { alpha2Of, alpha3 } from './common/country';
import { parseLatLon } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, distanceMetres, placeNumber, regionLetters, resultPoint, smallBox } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import { searchCall, searchLanguage, searchLimit, searchText } from './common/search';
import type {
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParseResult,
  SearchResult,
  SearchResults,
} from './types';
import { houseNumberOf, streetOf, suburbOf } from './common/street';

/** Which HERE API the request used. */
export interface HereState {
  api: 'v7' | 'legacy';
}

/**
 * A HERE error. `auth` errors come from HERE's authentication layer on both APIs:
 * `{error, error_description}`; the others are the API's own: v7 `{status,title,cause,action,correlationId}`,
 * legacy `{_type:"ns2:Error", type:"ApplicationError", subtype, Details, AdditionalData}`.
 */
export interface HereError {
  status: number;
  kind: 'auth' | 'api';
  /** `error` of auth errors; `title` (v7) / `subtype` (legacy) of API errors. */
  title: string;
}

const auth = (status: number, title: string): HereError => ({ status, kind: 'auth', title });
const api = (status: number, title: string): HereError => ({ status, kind: 'api', title });

/** D24: each gateway code as a HERE error (402 for no credits: HERE documents no equivalent, HTTP's own). */
export const HERE_ERRORS: ErrorTable<HereError> = {
  missing_key: auth(401, 'Unauthorized'),
  invalid_key: auth(401, 'Unauthorized'),
  key_revoked: auth(401, 'Unauthorized'),
  no_credits: auth(402, 'Payment Required'),
  key_ip_limit: auth(403, 'Forbidden'),
  account_ip_limit: auth(403, 'Forbidden'),
  account_suspended: auth(403, 'Forbidden'),
  key_restricted: auth(403, 'Forbidden'),
  quota_exceeded: auth(429, 'Too Many Requests'),
  rate_limited: auth(429, 'Too Many Requests'),
  conflicting_credentials: api(400, 'Conflicting credentials'),
  invalid_parameter: api(400, 'Illegal input for parameter'),
  invalid_forwarded: api(400, 'Illegal input for parameter'),
  ipv4_required: api(400, 'IPv4 address required'),
  not_found: api(404, 'Not Found'),
  search_unavailable: api(400, 'Illegal input for parameter'),
  method_not_allowed: api(405, 'Method Not Allowed'),
  backend_unavailable: api(502, 'Bad Gateway'),
  backend_timeout: api(504, 'Gateway Timeout'),
  store_unavailable: api(503, 'Service Unavailable'),
  internal: api(500, 'Internal Server Error'),
};

const LEGACY = '/6.2/reversegeocode.json';
const V7_FORWARD = '/v1/geocode';
const LEGACY_FORWARD = '/6.2/geocode.json';

/** Alpha-3 (or alpha-2) codes separated by commas as alpha-2 codes; a string naming the bad code otherwise. */
function countriesOf(list: string | undefined): string[] | null | string {
  if (list === undefined || list.trim() === '') return null;
  const out: string[] = [];
  for (const c of list.split(',')) {
    const two = alpha2Of(c.trim());
    if (two === null) return c;
    if (!out.includes(two)) out.push(two);
  }
  return out;
}

/**
 * Forward lookups (issue 11). v7 `/v1/geocode`: `q` (or `qq` with its `city=...;country=...` parts), `limit`
 * (default 20, at most 50 here), `lang`, `in=countryCode:FRA,DEU`, `at=lat,lng`. Legacy 6.2 `/6.2/geocode.json`:
 * `searchtext`, `country` (alpha-3 list), `language`, `maxresults` (default 10), `prox=lat,lng[,radius]`.
 */
function parseForward(q: Query, legacy: boolean, state: HereState): ParseResult<HereState> {
  const names = legacy
    ? ['searchtext', 'country', 'language', 'maxresults', 'prox']
    : ['q', 'qq', 'limit', 'lang', 'in', 'at'];
  const v: Record<string, string | undefined> = {};
  const keep = (r: ParseResult<never>): ParseResult<HereState> => (r && !r.ok ? { ...r, state } : r);
  for (const name of names) {
    const read = once(q, name);
    if ('refusal' in read) return keep(read.refusal);
    v[name] = read.value;
  }
  const qq = (v['qq'] ?? '')
    .split(';')
    .map((p) => p.split('=')[1]?.trim())
    .filter((x): x is string => x !== undefined && x !== '');
  const textName = legacy ? 'searchtext' : 'q';
  const raw = legacy
    ? v['searchtext']
    : [v['q'], ...qq].filter((x) => x !== undefined && x !== '').join(', ');
  const t = searchText(raw, textName);
  if (!t.ok) return keep(refuse('invalid_parameter', t.parameter, t.detail));
  const limit = searchLimit(
    legacy ? v['maxresults'] : v['limit'],
    legacy ? 'maxresults' : 'limit',
    legacy ? 10 : 20,
  );
  if (!limit.ok) return keep(refuse('invalid_parameter', limit.parameter, limit.detail));
  const lang = searchLanguage(legacy ? v['language'] : v['lang'], legacy ? 'language' : 'lang');
  if (!lang.ok) return keep(refuse('invalid_parameter', lang.parameter, lang.detail));
  const inFilter = legacy ? v['country'] : /^countryCode:(.*)$/.exec(v['in'] ?? '')?.[1];
  if (!legacy && v['in'] !== undefined && inFilter === undefined)
    return keep(refuse('invalid_parameter', 'in', 'in must be countryCode:ISO3[,ISO3...]'));
  const countries = countriesOf(inFilter);
  if (typeof countries === 'string')
    return keep(refuse('invalid_parameter', legacy ? 'country' : 'in', `${countries} is not a country code`));
  let focus: { lat: number; lon: number } | null = null;
  const at = legacy ? v['prox'] : v['at'];
  if (at !== undefined) {
    const point = readPosition(at, legacy ? 'prox' : 'at', legacy);
    if (!point.ok) return keep(refuse('invalid_parameter', point.parameter, point.detail));
    focus = { lat: point.lat, lon: point.lon };
  }
  const call = searchCall(t.value, { limit: limit.value, language: lang.value, countries, focus });
  return { ok: true, request: { call, state } };
}

/** Reads `lat,lng` or, for the legacy API, `lat,lng,radius`. */
function readPosition(text: string | undefined, parameter: string, legacy: boolean) {
  if (text === undefined || text.trim() === '')
    return { ok: false as const, parameter, detail: `${parameter} is required` };
  const parts = text.split(',');
  if (parts.length !== 2 && !(legacy && parts.length === 3)) {
    return { ok: false as const, parameter, detail: `${parameter} must be "latitude,longitude"` };
  }
  const point = parseLatLon(parts[0], parts[1], { lat: 'latitude', lon: 'longitude' });
  return point.ok ? point : { ok: false as const, parameter, detail: `${parameter}: ${point.detail}` };
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const HERE_FORMS: readonly RequestForm[] = [
  { example: '/v1/revgeocode?at=48.8584,2.2945&apiKey=K', clients: 'geopy HereV7 (here.py:410)' },
  { example: '/v1/revgeocode?at=48.8584%2C2.2945&apikey=K', clients: 'lower-case apikey of code samples' },
  {
    example: '/6.2/reversegeocode.json?pos=48.8584,2.2945,250&mode=retrieveAddresses&apiKey=K',
    clients: 'node-geocoder here, geopy Here (legacy 6.2)',
  },
  { example: '/6.2/reversegeocode.json?prox=48.8584,2.2945&apiKey=K', clients: 'legacy prox=' },
  { example: '/v1/revgeocode/?at=48.8584,2.2945&apiKey=K', clients: 'trailing slash' },
];

function parse(req: AdapterRequest): ParseResult<HereState> {
  const path = routePath(req.path);
  const forward = path === V7_FORWARD || path === LEGACY_FORWARD;
  if (path !== '/v1/revgeocode' && path !== LEGACY && !forward) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const legacy = path === LEGACY || path === LEGACY_FORWARD;
  const state: HereState = { api: legacy ? 'legacy' : 'v7' };
  const q = parseQuery(req.query);
  if (forward) return parseForward(q, legacy, state);
  const name = legacy ? (q.has('prox') && !q.has('pos') ? 'prox' : 'pos') : 'at';
  const read = once(q, name);
  // Refusals keep the API so a legacy 6.2 client gets the legacy error shape.
  const keep = (r: ParseResult<never>): ParseResult<HereState> => (r && !r.ok ? { ...r, state } : r);
  if ('refusal' in read) return keep(read.refusal);
  const point = readPosition(read.value, name, legacy);
  if (!point.ok) return keep(refuse('invalid_parameter', point.parameter, point.detail));
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state } };
}

function v7Item(r: ReverseRecord): Record<string, unknown> {
  const p = resultPoint(r);
  const [s, n, w, e] = smallBox(r);
  const address = compact({
    label: r.displayName,
    countryCode: alpha3(r.countryCode),
    countryName: r.country,
    stateCode: regionLetters(r),
    state: r.region,
    county: r.county,
    city: r.locality,
    district: suburbOf(r),
    street: streetOf(r),
    postalCode: r.postcode,
    houseNumber: houseNumberOf(r),
  });
  const street = streetOf(r) !== null;
  return compact({
    title: r.displayName,
    id: `here:geogate:${placeNumber(r)}`,
    resultType: houseNumberOf(r)
      ? 'houseNumber'
      : street
        ? 'street'
        : r.locality
          ? 'locality'
          : 'administrativeArea',
    ...(houseNumberOf(r) ? { houseNumberType: 'PA' } : {}),
    localityType: street ? undefined : r.locality ? 'city' : undefined,
    administrativeAreaType: street || r.locality ? undefined : 'country',
    address,
    position: { lat: p.lat, lng: p.lon },
    distance: distanceMetres(r),
    mapView: { west: w, south: s, east: e, north: n },
  });
}

function legacyResult(r: ReverseRecord): Record<string, unknown> {
  const p = resultPoint(r);
  const [s, n, w, e] = smallBox(r);
  const additional: { value: string; key: string }[] = [];
  if (r.countryCode) additional.push({ value: r.countryCode, key: 'Country2' });
  if (r.country) additional.push({ value: r.country, key: 'CountryName' });
  if (r.region) additional.push({ value: r.region, key: 'StateName' });
  if (r.county) additional.push({ value: r.county, key: 'CountyName' });
  const address = compact({
    Label: r.displayName,
    Country: alpha3(r.countryCode),
    State: regionLetters(r) ?? r.region,
    County: r.county,
    City: r.locality,
    District: suburbOf(r),
    Street: streetOf(r),
    HouseNumber: houseNumberOf(r),
    PostalCode: r.postcode,
    AdditionalData: additional,
  });
  const level = houseNumberOf(r) ? 'houseNumber' : streetOf(r) ? 'street' : r.locality ? 'city' : 'country';
  return compact({
    Relevance: 1,
    Distance: distanceMetres(r),
    MatchLevel: level,
    MatchQuality:
      level === 'houseNumber'
        ? { Street: [1], HouseNumber: 1 }
        : level === 'street'
          ? { Street: [1] }
          : r.locality
            ? { City: 1 }
            : { Country: 1 },
    Location: {
      LocationId: `geogate-${placeNumber(r)}`,
      LocationType: streetOf(r) ? 'address' : 'area',
      DisplayPosition: { Latitude: p.lat, Longitude: p.lon },
      MapView: { TopLeft: { Latitude: n, Longitude: w }, BottomRight: { Latitude: s, Longitude: e } },
      Address: address,
    },
  });
}

function renderReverse(state: HereState, r: ReverseRecord): AdapterResponse {
  const found = r.locality !== null || r.countryCode !== null;
  if (state.api === 'v7') return json(200, { items: found ? [v7Item(r)] : [], attribution: r.attribution });
  const view = { _type: 'SearchResultsViewType', ViewId: 0, Result: found ? [legacyResult(r)] : [] };
  return json(200, { Response: { MetaInfo: {}, View: found ? [view] : [] }, attribution: r.attribution });
}

/**
 * A forward lookup's answer, best first: v7 `items` with `scoring.queryScore` and `mapView` from the extent; legacy
 * 6.2 `Response.View[0].Result` with `Relevance`. Nothing matched: `items: []` / an empty `View`.
 */
function renderSearch(state: HereState, a: SearchResults): AdapterResponse {
  const view = (r: SearchResult) =>
    r.bbox === null ? null : { west: r.bbox[0], south: r.bbox[1], east: r.bbox[2], north: r.bbox[3] };
  if (state.api === 'v7') {
    const items = a.results.map((r) => {
      const item = v7Item(r);
      delete item['distance'];
      const box = view(r);
      return { ...item, ...(box ? { mapView: box } : {}), scoring: { queryScore: r.relevance ?? 1 } };
    });
    return json(200, { items, attribution: a.attribution });
  }
  const results = a.results.map((r) => {
    const one = legacyResult(r);
    delete one['Distance'];
    return { ...one, Relevance: r.relevance ?? 1 };
  });
  const v = { _type: 'SearchResultsViewType', ViewId: 0, Result: results };
  return json(200, {
    Response: { MetaInfo: {}, View: results.length ? [v] : [] },
    attribution: a.attribution,
  });
}

/**
 * A refusal on the legacy 6.2 path: HERE's error fields and status, plus an empty `Response.View`. node-geocoder's
 * `here` reverse reads `result.Response.View[0]` on every JSON body without checking the status; without the member
 * it throws inside bluebird (uncaught exception, the promise never settles). With it, the client resolves `[]`.
 */
function legacyError(row: HereError, text: string): AdapterResponse {
  const empty = { Response: { View: [] } };
  if (row.kind === 'auth') return json(row.status, { error: row.title, error_description: text, ...empty });
  const subtype = row.status === 400 ? 'InvalidInputData' : row.title.replace(/ /g, '');
  return json(row.status, {
    _type: 'ns2:Error',
    type: 'ApplicationError',
    subtype,
    Details: text,
    AdditionalData: [],
    ...empty,
  });
}

/** Renders a refusal; `not_found` with a parsed request is the backend's "no result": an empty answer. */
function renderError(
  state: HereState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) {
    return json(200, state.api === 'v7' ? { items: [] } : { Response: { MetaInfo: {}, View: [] } });
  }
  const row = HERE_ERRORS[code];
  const text = withTopUp(detail || row.title, facts);
  if (state?.api === 'legacy') return legacyError(row, text);
  if (row.kind === 'auth') return json(row.status, { error: row.title, error_description: text });
  return json(row.status, {
    status: row.status,
    title: row.title,
    cause: text,
    action: '',
    correlationId: '',
  });
}

/** The HERE adapter. */
export const here: Adapter<HereState> = {
  name: 'here',
  credentialParams: ['apiKey', 'apikey'],
  providerCredentials: (req) => queryCredentials(req, ['apiKey', 'apikey']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: HereState, _r: IpRecord) =>
    renderError(null, 'not_found', 'IP lookups are not served here', {}),
  renderError,
};

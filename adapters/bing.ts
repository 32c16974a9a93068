/**
 * Drop-in host for Bing Maps REST clients: `GET /REST/v1/Locations/{lat},{lon}?key=` (query parameter names are not
 * case-sensitive at Bing). Success and errors share Bing's envelope; errors carry `errorDetails` and one empty
 * resource set (providers.md 1.2; see renderError). The data attribution goes in Bing's own `copyright` field.
 */
import { STATUS_CODES } from 'node:http';
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { parseLatLon, splitPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { Level } from './common/level';
import { answerLevel, nameAt } from './common/level';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, once, refuse, routePath } from './common/parse';
import { compact, regionLetters, resultPoint, smallBox } from './common/place';
import { parseQuery, type Query } from './common/query';
import { json } from './common/respond';
import { partsText, searchCall, searchLanguage, searchLimit, searchPoint, searchText } from './common/search';
import type {
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParseResult,
  SearchParts,
  SearchResults,
} from './types';
import { houseNumberOf, streetLine, suburbOf } from './common/street';

/** The entity level `includeEntityTypes` admits (null: none we can answer). */
export interface BingState {
  level: Level | null;
}

/** A Bing error: HTTP status (= `statusCode`) and `authenticationResultCode`. */
export interface BingError {
  status: number;
  auth:
    | 'ValidCredentials'
    | 'InvalidCredentials'
    | 'CredentialsExpired'
    | 'NotAuthorized'
    | 'NoCredentials'
    | 'None';
}

/** D24: each gateway code as a Bing status and authentication result (402 for no credits: Bing documents none). */
export const BING_ERRORS: ErrorTable<BingError> = {
  missing_key: { status: 401, auth: 'NoCredentials' },
  invalid_key: { status: 401, auth: 'InvalidCredentials' },
  key_revoked: { status: 401, auth: 'CredentialsExpired' },
  no_credits: { status: 402, auth: 'ValidCredentials' },
  key_ip_limit: { status: 403, auth: 'NotAuthorized' },
  account_ip_limit: { status: 403, auth: 'NotAuthorized' },
  account_suspended: { status: 403, auth: 'NotAuthorized' },
  key_restricted: { status: 403, auth: 'NotAuthorized' },
  quota_exceeded: { status: 429, auth: 'ValidCredentials' },
  rate_limited: { status: 429, auth: 'ValidCredentials' },
  conflicting_credentials: { status: 400, auth: 'None' },
  invalid_parameter: { status: 400, auth: 'None' },
  invalid_forwarded: { status: 400, auth: 'None' },
  ipv4_required: { status: 400, auth: 'None' },
  not_found: { status: 404, auth: 'None' },
  search_unavailable: { status: 400, auth: 'None' },
  method_not_allowed: { status: 405, auth: 'None' },
  backend_unavailable: { status: 502, auth: 'None' },
  backend_timeout: { status: 504, auth: 'None' },
  store_unavailable: { status: 503, auth: 'None' },
  internal: { status: 500, auth: 'None' },
};

const PATH = /^\/rest\/v1\/locations\/([^/]+)$/i;
const FIND = /^\/rest\/v1\/locations$/i;
/** Bing's structured fields (Find a Location by Address) → the canonical parts. */
const STRUCTURED: readonly [string, keyof SearchParts][] = [
  ['addressline', 'street'],
  ['locality', 'city'],
  ['admindistrict', 'state'],
  ['postalcode', 'postcode'],
  ['countryregion', 'country'],
];

/**
 * Forward lookups (issue 11): `/REST/v1/Locations?query=` (or `q=`), `/REST/v1/Locations/{query}` and the structured
 * form (addressLine, locality, adminDistrict, postalCode, countryRegion); `maxResults` (1..20, default 5), `c`
 * (culture), `userLocation=lat,lon`. Parameter names are case-insensitive, as Bing's are.
 */
function parseForward(text: string | undefined, q: Query, level: Level | null): ParseResult<BingState> {
  const v: Record<string, string | undefined> = {};
  for (const name of [
    'query',
    'q',
    'maxresults',
    'c',
    'culture',
    'userlocation',
    ...STRUCTURED.map(([n]) => n),
  ]) {
    const read = once(q, name);
    if ('refusal' in read) return read.refusal;
    v[name] = read.value;
  }
  const parts: SearchParts = {};
  for (const [name, key] of STRUCTURED) if (v[name]?.trim()) parts[key] = (v[name] as string).trim();
  const free = text ?? v['query'] ?? v['q'];
  const structured = free === undefined && Object.keys(parts).length > 0;
  const countryCode =
    parts.country && /^[A-Za-z]{2}$/.test(parts.country) ? [parts.country.toUpperCase()] : null;
  const t = searchText(structured ? partsText(parts) : free, 'query');
  if (!t.ok) return refuse('invalid_parameter', t.parameter, t.detail);
  const limit = searchLimit(v['maxresults'], 'maxResults', 5, 20);
  if (!limit.ok) return refuse('invalid_parameter', limit.parameter, limit.detail);
  const lang = searchLanguage(v['c'] ?? v['culture'], 'c');
  if (!lang.ok) return refuse('invalid_parameter', lang.parameter, lang.detail);
  const focus = searchPoint(v['userlocation']?.split(',').slice(0, 2).join(','), 'userLocation');
  if (!focus.ok) return refuse('invalid_parameter', focus.parameter, focus.detail);
  const call = searchCall(t.value, {
    parts: structured ? parts : null,
    limit: limit.value,
    language: lang.value,
    focus: focus.value,
    countries: structured ? countryCode : null,
  });
  return { ok: true, request: { call, state: { level } } };
}
const ENTITY: Record<string, Level> = {
  populatedplace: 'locality',
  admindivision1: 'region',
  countryregion: 'country',
};

/** The most detailed level `includeEntityTypes` admits; every level when absent. */
function levelFor(types: string | undefined): Level | null {
  if (types === undefined || types === '') return 'locality';
  const levels = types.split(',').map((t) => ENTITY[t.trim().toLowerCase()]);
  return (['locality', 'region', 'country'] as const).find((l) => levels.includes(l)) ?? null;
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const BING_FORMS: readonly RequestForm[] = [
  {
    example: '/REST/v1/Locations/48.8584,2.2945?key=K',
    clients: 'node-geocoder virtualearth, geopy Bing (bing.py:35)',
  },
  { example: '/REST/V1/Locations/48.8584%2C2.2945?key=K&o=json', clients: 'path case and encoded comma' },
  {
    example: '/rest/v1/locations/48.8584,2.2945?includeentitytypes=PopulatedPlace&key=K',
    clients: 'case-insensitive path and parameter names',
  },
  { example: '/REST/v1/Locations/48.8584,2.2945/?key=K', clients: 'trailing slash' },
];

function parse(req: AdapterRequest): ParseResult<BingState> {
  const route = routePath(req.path);
  const m = PATH.exec(route);
  const find = FIND.test(route);
  if (!m && !find) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query, true);
  const output = q.get('o')?.[0] ?? q.get('output')?.[0];
  if (output !== undefined && output.toLowerCase() !== 'json')
    return refuse('invalid_parameter', 'o', 'only JSON output is served');
  const level = levelFor(q.get('includeentitytypes')?.[0]);
  if (!m) return parseForward(undefined, q, level);
  // A path segment with a letter is a query (`/Locations/{query}`), anything else must be a point.
  if (splitPair(m[1] as string) === null && /\p{L}/u.test(m[1] as string))
    return parseForward(m[1], q, level);
  const pair = splitPair(m[1] as string);
  if (pair === null) return refuse('invalid_parameter', 'point', 'point must be "latitude,longitude"');
  const point = parseLatLon(pair[0], pair[1], { lat: 'latitude', lon: 'longitude' });
  if (!point.ok) return refuse('invalid_parameter', 'point', `point: ${point.detail}`);
  const state: BingState = { level: levelFor(q.get('includeentitytypes')?.[0]) };
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state } };
}

function resource(r: ReverseRecord, level: Level): Record<string, unknown> {
  const p = resultPoint(r);
  const [s, n, w, e] = smallBox(r);
  const name =
    level === 'locality'
      ? r.displayName
      : [nameAt(level, r), level === 'region' ? r.country : null].filter(Boolean).join(', ');
  const line = level === 'locality' ? streetLine(r) : null;
  return {
    __type: 'Location:http://schemas.microsoft.com/search/local/ws/rest/v1',
    bbox: [s, w, n, e],
    name,
    point: { type: 'Point', coordinates: [p.lat, p.lon] },
    address: compact({
      addressLine: line,
      neighborhood: level === 'locality' ? suburbOf(r) : null,
      adminDistrict: level !== 'country' ? (regionLetters(r) ?? r.region) : null,
      adminDistrict2: level === 'locality' ? r.county : null,
      countryRegion: r.country,
      countryRegionIso2: r.countryCode,
      formattedAddress: name,
      locality: level === 'locality' ? r.locality : null,
      postalCode: level === 'locality' ? r.postcode : null,
    }),
    confidence: 'Medium',
    entityType:
      line !== null
        ? houseNumberOf(r)
          ? 'Address'
          : 'RoadBlock'
        : level === 'locality'
          ? 'PopulatedPlace'
          : level === 'region'
            ? 'AdminDivision1'
            : 'CountryRegion',
    geocodePoints: [
      { type: 'Point', coordinates: [p.lat, p.lon], calculationMethod: 'Rooftop', usageTypes: ['Display'] },
    ],
    matchCodes: ['Good'],
  };
}

function envelope(
  status: number,
  auth: BingError['auth'],
  copyright: string,
  extra: Record<string, unknown>,
): AdapterResponse {
  return json(status, {
    authenticationResultCode: auth,
    copyright,
    ...extra,
    statusCode: status,
    statusDescription: STATUS_CODES[status] ?? 'Error',
  });
}

function renderReverse(state: BingState, r: ReverseRecord): AdapterResponse {
  const level = answerLevel(state.level, r);
  const resources = level ? [resource(r, level)] : [];
  return envelope(200, 'ValidCredentials', r.attribution, {
    resourceSets: [{ estimatedTotal: resources.length, resources }],
  });
}

/** Bing's confidence words for a relevance (High from 0.9, Medium from 0.5, else Low). */
function confidence(relevance: number | null): 'High' | 'Medium' | 'Low' {
  const r = relevance ?? 1;
  return r >= 0.9 ? 'High' : r >= 0.5 ? 'Medium' : 'Low';
}

/** A forward lookup's answer: one resource set, best first (bbox [s, w, n, e] from the extent, confidence). */
function renderSearch(state: BingState, a: SearchResults): AdapterResponse {
  const resources = a.results.map((r) => {
    const level = answerLevel(state.level ?? 'locality', r) ?? 'country';
    const one = resource(r, level);
    const bbox = r.bbox ? [r.bbox[1], r.bbox[0], r.bbox[3], r.bbox[2]] : one['bbox'];
    const c = confidence(r.relevance);
    return { ...one, bbox, confidence: c, matchCodes: [c === 'High' ? 'Good' : 'Ambiguous'] };
  });
  return envelope(200, 'ValidCredentials', a.attribution, {
    resourceSets: [{ estimatedTotal: resources.length, resources }],
  });
}

/**
 * Renders a refusal in Bing's envelope. Bing's errors carry `resourceSets: []`; ours carry one empty resource set
 * (`estimatedTotal: 0`), because node-geocoder's `virtualearth` reverse reads `resourceSets[0].resources` on every
 * body without checking the status and otherwise throws inside bluebird (uncaught exception, a promise that never
 * settles); with it the client resolves `[]`. `not_found` with a parsed request is the backend's "no result": Bing's
 * 200 with an empty resource set.
 */
function renderError(
  state: BingState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) {
    return envelope(200, 'ValidCredentials', '', { resourceSets: [{ estimatedTotal: 0, resources: [] }] });
  }
  const row = BING_ERRORS[code];
  return envelope(row.status, row.auth, '', {
    errorDetails: [withTopUp(detail || (STATUS_CODES[row.status] ?? 'Error'), facts)],
    resourceSets: [{ estimatedTotal: 0, resources: [] }],
  });
}

/** The Bing Maps adapter. */
export const bing: Adapter<BingState> = {
  name: 'bing',
  credentialParams: ['key'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: BingState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

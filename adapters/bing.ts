/**
 * Drop-in host for Bing Maps REST clients: `GET /REST/v1/Locations/{lat},{lon}?key=` (query parameter names are not
 * case-sensitive at Bing). Success and errors share Bing's envelope; errors carry `errorDetails` and one empty
 * resource set (providers.md 1.2; see renderError). The data attribution goes in Bing's own `copyright` field.
 */
import { STATUS_CODES } from 'node:http';
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import { parseLatLon, splitPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { Level } from './common/level';
import { answerLevel, nameAt } from './common/level';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, refuse, routePath } from './common/parse';
import { compact, regionLetters, resultPoint, smallBox } from './common/place';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult } from './types';
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
  quota_exceeded: { status: 429, auth: 'ValidCredentials' },
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
  const m = PATH.exec(routePath(req.path));
  if (!m) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query, true);
  const output = q.get('o')?.[0] ?? q.get('output')?.[0];
  if (output !== undefined && output.toLowerCase() !== 'json')
    return refuse('invalid_parameter', 'o', 'only JSON output is served');
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
  _f: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null) {
    return envelope(200, 'ValidCredentials', '', { resourceSets: [{ estimatedTotal: 0, resources: [] }] });
  }
  const row = BING_ERRORS[code];
  return envelope(row.status, row.auth, '', {
    errorDetails: [detail || (STATUS_CODES[row.status] ?? 'Error')],
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
  renderIp: (_s: BingState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
};

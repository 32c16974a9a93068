/**
 * Drop-in host for TomTom Search clients: `GET /search/2/reverseGeocode/{lat},{lon}.json?key=`. TomTom's error body
 * is uncertain (⚠ providers.md 1.3); we answer `{errorText, detailedError:{code,message}, httpStatusCode}`, the
 * Search API shape whose `detailedError` TomTom's own types declare. TomTom uses 403 for key and quota refusals and
 * 596 for an unknown service path.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import { alpha3 } from './common/country';
import { parseLatLon, splitPair } from './common/coords';
import { queryCredentials } from './common/credentials';
import type { ErrorTable, RequestForm } from './common/parse';
import type { ClientTexts } from './common/texts';
import { methodRefusal, refuse, routePath } from './common/parse';
import { compact, distanceMetres, regionLetters, resultPoint } from './common/place';
import { json } from './common/respond';
import type { Adapter, AdapterRequest, AdapterResponse, ParseResult } from './types';
import { houseNumberOf, streetOf, suburbOf } from './common/street';

/** TomTom needs no rendering options. */
export type TomtomState = Record<string, never>;

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
  quota_exceeded: { status: 403, code: 'AccountOverRateLimit' },
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
  const m = PATH.exec(routePath(req.path));
  if (!m) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  if (m[2] !== 'json') return refuse('invalid_parameter', 'ext', 'only the json extension is served');
  const pair = splitPair(m[1] as string);
  if (pair === null) return refuse('invalid_parameter', 'position', 'position must be "latitude,longitude"');
  const point = parseLatLon(pair[0], pair[1], { lat: 'latitude', lon: 'longitude' });
  if (!point.ok) return refuse('invalid_parameter', 'position', `position: ${point.detail}`);
  return { ok: true, request: { call: { kind: 'reverse', lat: point.lat, lon: point.lon }, state: {} } };
}

function renderReverse(_s: TomtomState, r: ReverseRecord): AdapterResponse {
  const found = r.locality !== null || r.countryCode !== null;
  const p = resultPoint(r);
  const address = compact({
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
  _f: ErrorFacts,
): AdapterResponse {
  if (code === 'not_found' && state !== null)
    return json(200, { summary: { queryTime: 0, numResults: 0 }, addresses: [] });
  const row = TOMTOM_ERRORS[code];
  const message = detail || row.code;
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
  renderIp: (_s: TomtomState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
  clientTexts: TOMTOM_TEXTS,
};

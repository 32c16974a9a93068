/**
 * Drop-in host for LocationIQ clients: `GET /v1/reverse?key=&lat=&lon=&format=json` (also `/v1/reverse.php`),
 * answered in Nominatim's format with LocationIQ's `{"error":"<message>"}` errors (providers.md 1.4).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import type { ErrorFacts, GatewayCode } from '../gateway/core/errors';
import { queryCredentials } from './common/credentials';
import { hasPlace, renderNominatim } from './common/nominatim-format';
import type { NominatimView } from './common/nominatim-format';
import { readNominatimRequest } from './common/nominatim-request';
import {
  readNominatimSearch,
  renderNominatimSearch,
  type NominatimSearchView,
} from './common/nominatim-search';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, routePath } from './common/parse';
import { parseQuery, type Query } from './common/query';
import { json, xml, xmlEscape } from './common/respond';
import type {
  AccountEndpoints,
  AccountView,
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParseResult,
  SearchResults,
} from './types';

/** A LocationIQ error: status and the documented `error` text. */
export interface LocationiqError {
  status: number;
  error: string;
}

/**
 * D24: each gateway code as LocationIQ's documented status and text. LocationIQ has no payment error: its daily
 * limit is 429 "Rate Limited Day", which is also what a client sees when credit runs out.
 */
export const LOCATIONIQ_ERRORS: ErrorTable<LocationiqError> = {
  missing_key: { status: 401, error: 'Invalid key' },
  invalid_key: { status: 401, error: 'Invalid key' },
  key_revoked: { status: 401, error: 'Key not active' },
  no_credits: { status: 429, error: 'Rate Limited Day' },
  key_ip_limit: { status: 403, error: 'Access restricted' },
  account_ip_limit: { status: 403, error: 'Access restricted' },
  account_suspended: { status: 401, error: 'Key not active' },
  key_restricted: { status: 403, error: 'Access restricted' },
  quota_exceeded: { status: 429, error: 'Rate Limited Day' },
  rate_limited: { status: 429, error: 'Rate Limited Second' },
  conflicting_credentials: { status: 400, error: 'Invalid Request' },
  invalid_parameter: { status: 400, error: 'Invalid Request' },
  invalid_forwarded: { status: 400, error: 'Invalid Request' },
  ipv4_required: { status: 400, error: 'Invalid Request' },
  not_found: { status: 404, error: 'Invalid Request' },
  search_unavailable: { status: 400, error: 'Invalid Request' },
  method_not_allowed: { status: 405, error: 'Invalid Request' },
  backend_unavailable: { status: 502, error: 'Unknown error - Please try again after some time' },
  backend_timeout: { status: 504, error: 'Unknown error - Please try again after some time' },
  store_unavailable: { status: 503, error: 'Unknown error - Please try again after some time' },
  internal: { status: 500, error: 'Unknown error - Please try again after some time' },
};

const PATHS = new Set(['/v1/reverse', '/v1/reverse.php']);
const SEARCH_PATHS = new Set(['/v1/search', '/v1/search.php']);

/** A reverse request's view, or a search's (issue 11). */
type LocationiqState = NominatimView | NominatimSearchView;
const FORMATS = ['json', 'xml'] as const;

/**
 * The view a refusal is rendered with (D24: the error in the shape the client asked for): `format=xml` gets the XML
 * error, anything else (json, the default, an unknown or repeated format) the JSON one.
 */
function refusalView(q: Query): NominatimView {
  const formats = q.get('format') ?? [];
  const format = formats.length === 1 && formats[0] === 'xml' ? 'xml' : 'json';
  return { format, zoom: 18, addressdetails: true, echo: '' };
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const LOCATIONIQ_FORMS: readonly RequestForm[] = [
  {
    example: '/v1/reverse?key=K&lat=48.8584&lon=2.2945&format=json&addressdetails=1',
    clients: 'node-geocoder locationiq',
  },
  {
    example: '/v1/reverse.php?key=K&lat=48.8584&lon=2.2945&format=json',
    clients: 'the .php path of older clients',
  },
  { example: '/v1/reverse?key=K&lat=48.8584&lon=2.2945&format=xml', clients: 'xml output' },
  { example: '/v1/reverse?key=K&lat=48.8584&lon=2.2945', clients: 'json by default' },
  { example: '/v1/reverse/?key=K&lat=48.8584&lon=2.2945&format=json', clients: 'trailing slash' },
];

/** `/v1/search` (issue 11): Nominatim's search parameters (LocationIQ's are Nominatim's), json by default. */
function parseSearch(req: AdapterRequest): ParseResult<LocationiqState> {
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  const read = readNominatimSearch(q, 'json');
  if (read === null) return read;
  if ('ok' in read) return read.ok ? read : { ...read, state: refusalView(q) };
  return { ok: true, request: { call: read.call, state: read.view } };
}

/** Nothing matched is LocationIQ's 404 "Unable to geocode" (as for reverse), else Nominatim's list. */
function renderSearch(state: LocationiqState, a: SearchResults): AdapterResponse {
  if (a.results.length === 0) return renderError(state, 'not_found', '', {});
  return renderNominatimSearch(state as NominatimSearchView, a);
}

function parse(req: AdapterRequest): ParseResult<LocationiqState> {
  if (SEARCH_PATHS.has(routePath(req.path))) return parseSearch(req);
  if (!PATHS.has(routePath(req.path))) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  const read = readNominatimRequest(q, FORMATS, 'json');
  if (read === null) return read;
  if ('ok' in read) return read.ok ? read : { ...read, state: refusalView(q) };
  return { ok: true, request: { call: { kind: 'reverse', lat: read.lat, lon: read.lon }, state: read.view } };
}

/** A burst refusal of the per-minute window: LocationIQ names the window it met ("Rate Limited Second" otherwise). */
const RATE_LIMITED_MINUTE: LocationiqError = { status: 429, error: 'Rate Limited Minute' };

/**
 * Renders a refusal with LocationIQ's fixed texts (clients match them; the gateway's detail is not added). A
 * `not_found` with a parsed request is the backend's "no result": LocationIQ's 404 "Unable to geocode".
 */
function renderError(
  state: LocationiqState | null,
  code: GatewayCode,
  _detail: string,
  f: ErrorFacts,
): AdapterResponse {
  const row =
    code === 'not_found' && state !== null
      ? { status: 404, error: 'Unable to geocode' }
      : code === 'rate_limited' && f.rateWindow === 'minute'
        ? RATE_LIMITED_MINUTE
        : LOCATIONIQ_ERRORS[code];
  if (state?.format === 'xml') {
    return xml(row.status, `<?xml version="1.0" encoding="UTF-8" ?>\n<error>${xmlEscape(row.error)}</error>`);
  }
  return json(row.status, { error: row.error });
}

function renderReverse(state: LocationiqState, r: ReverseRecord): AdapterResponse {
  // LocationIQ answers "no place" with 404 "Unable to geocode", where Nominatim uses 200.
  return hasPlace(state as NominatimView, r)
    ? renderNominatim(state as NominatimView, r, r.attribution)
    : renderError(state, 'not_found', '', {});
}

/**
 * LocationIQ's `GET /v1/balance?key=` (issue 16 item 4), not counted: `{"status":"ok","balance":{"day","bonus"}}`
 * with `day` the requests left in today's free allowance (null for an Unlimited key, which has no daily cap) and
 * `bonus` the requests the account's balance still pays for.
 */
const account: AccountEndpoints<LocationiqState> = {
  parse: (req) =>
    routePath(req.path) === '/v1/balance' && req.method.toUpperCase() === 'GET'
      ? { needsKey: true, state: refusalView(parseQuery(req.query)) }
      : null,
  render: (state, view: AccountView | null) => {
    const day = view?.rate ? view.rate.remaining : null;
    const bonus = view?.paid ?? 0;
    if (state.format === 'xml') {
      return xml(
        200,
        `<?xml version="1.0" encoding="UTF-8" ?>\n<balance><status>ok</status><day>${day ?? ''}</day><bonus>${bonus}</bonus></balance>`,
      );
    }
    return json(200, { status: 'ok', balance: { day, bonus } });
  },
};

/** The LocationIQ adapter. */
export const locationiq: Adapter<LocationiqState> = {
  name: 'locationiq',
  credentialParams: ['key'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse,
  renderSearch,
  renderIp: (_s: LocationiqState, _r: IpRecord) => renderError(null, 'not_found', '', {}),
  renderError,
  account,
};

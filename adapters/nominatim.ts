/**
 * Drop-in host for Nominatim (OpenStreetMap) clients: `GET /reverse` and `/reverse.php` with `format` xml (the
 * default), json, jsonv2, geojson or geocodejson. Nominatim has no key; the `key` query parameter is our addition
 * (spec 4.3), and a whitelisted address works without one (rule set B).
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { queryCredentials } from './common/credentials';
import { nominatimXmlError, renderNominatim, renderUnableToGeocode } from './common/nominatim-format';
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
import { json } from './common/respond';
import type {
  AccountEndpoints,
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParseResult,
  SearchResults,
} from './types';

/** A reverse request's view, or a search's (issue 11). */
type NominatimState = NominatimView | NominatimSearchView;

/**
 * How a refusal looks in JSON: `object` is Nominatim's own `{"error":{"code","message"}}` (v1/format.py); `string` is
 * `{"error":"<message>"}`, Nominatim's no-result form, used for the access refusals Nominatim itself never sends
 * because node-geocoder and similar clients turn a string `error` into a readable Error (providers.md 1.6, 2.1).
 */
export interface NominatimError {
  status: number;
  shape: 'object' | 'string';
  message: string;
}

const access = (status: number, message: string): NominatimError => ({ status, shape: 'string', message });
const own = (status: number, message: string): NominatimError => ({ status, shape: 'object', message });

/** D24: each gateway code as a Nominatim error. */
export const NOMINATIM_ERRORS: ErrorTable<NominatimError> = {
  missing_key: access(401, 'Missing API key'),
  invalid_key: access(401, 'Invalid API key'),
  key_revoked: access(401, 'API key revoked'),
  no_credits: access(402, 'No credits left'),
  key_ip_limit: access(403, 'All IP slots of this key are in use'),
  account_ip_limit: access(403, 'Address limit of this account reached'),
  account_suspended: access(403, 'Account suspended'),
  key_restricted: access(403, 'API key not allowed from this page or address'),
  quota_exceeded: access(429, 'Daily quota exceeded'),
  rate_limited: access(429, 'Too Many Requests'),
  conflicting_credentials: own(400, 'Conflicting credentials'),
  invalid_parameter: own(400, 'Invalid parameter'),
  invalid_forwarded: own(400, 'Invalid parameter'),
  ipv4_required: own(400, 'An IPv4 address is required'),
  not_found: own(404, 'Not found'),
  search_unavailable: own(501, 'Search is not available'),
  method_not_allowed: own(405, 'Method not allowed'),
  backend_unavailable: own(502, 'Bad gateway'),
  backend_timeout: own(504, 'Gateway timeout'),
  store_unavailable: own(503, 'Service unavailable'),
  internal: own(500, 'Internal server error'),
};

const PATHS = new Set(['/reverse', '/reverse.php']);
const SEARCH_PATHS = new Set(['/search', '/search.php']);
const ALL_FORMATS = ['xml', 'json', 'jsonv2', 'geojson', 'geocodejson'] as const;

/**
 * The view a refusal is rendered with: the requested format (xml when absent) so an XML client gets an XML error;
 * null when the format itself is unknown or repeated (rendered as JSON).
 */
function refusalView(q: Query): NominatimView | null {
  const formats = q.get('format') ?? ['xml'];
  const format = formats.length === 1 ? formats[0] : undefined;
  const known = ALL_FORMATS.find((f) => f === format);
  return known ? { format: known, zoom: 18, addressdetails: true, echo: '' } : null;
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const NOMINATIM_FORMS: readonly RequestForm[] = [
  {
    example: '/reverse?lat=48.8584&lon=2.2945&format=json&addressdetails=1&key=K',
    clients: 'node-geocoder openstreetmap, geopy Nominatim',
  },
  { example: '/reverse?lat=48.8584&lon=2.2945', clients: 'Geo::Coder::OSM (default xml)' },
  { example: '/reverse.php?lat=48.8584&lon=2.2945&format=jsonv2', clients: 'the deprecated .php path' },
  { example: '/reverse?lat=48.8584&lon=2.2945&format=geojson', clients: 'geojson output' },
  { example: '/reverse?lat=48.8584&lon=2.2945&format=geocodejson', clients: 'geocodejson output' },
  { example: '/reverse/?lat=48.8584&lon=2.2945&format=json', clients: 'trailing slash' },
];

/** `/search` (issue 11): json, jsonv2 (the default), geojson or geocodejson. */
function parseSearch(req: AdapterRequest): ParseResult<NominatimState> {
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const read = readNominatimSearch(parseQuery(req.query), 'jsonv2');
  if (read === null || 'ok' in read) return read;
  return { ok: true, request: { call: read.call, state: read.view } };
}

function parse(req: AdapterRequest): ParseResult<NominatimState> {
  if (SEARCH_PATHS.has(routePath(req.path))) return parseSearch(req);
  if (!PATHS.has(routePath(req.path))) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const q = parseQuery(req.query);
  const read = readNominatimRequest(q, ALL_FORMATS, 'xml');
  if (read === null) return read;
  if ('ok' in read) {
    const view = refusalView(q);
    return !read.ok && view ? { ...read, state: view } : read;
  }
  return { ok: true, request: { call: { kind: 'reverse', lat: read.lat, lon: read.lon }, state: read.view } };
}

/** Renders a refusal as Nominatim would for the requested format (JSON when the format is unknown). */
function renderError(
  state: NominatimState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  const row = NOMINATIM_ERRORS[code];
  const message = withTopUp(detail || row.message, facts);
  // not_found with a parsed request is the backend's "no result" (unknown paths have no state): Nominatim's 200 form.
  if (code === 'not_found' && state !== null) return renderUnableToGeocode(state.format);
  if (state?.format === 'xml') return nominatimXmlError(row.status, message);
  return json(
    row.status,
    row.shape === 'string' ? { error: message } : { error: { code: row.status, message } },
  );
}

/**
 * Nominatim's `GET /status` and `/status.php` (issue 16 item 4), not counted and needing no key (Nominatim has
 * none): `format=text` (the default) answers "OK", `format=json` `{"status":0,"message":"OK",...}`. It says the
 * gateway is serving; backend health is `/readyz` (D27).
 */
export function nominatimStatus(req: AdapterRequest): AdapterResponse | null {
  const path = routePath(req.path);
  if ((path !== '/status' && path !== '/status.php') || req.method.toUpperCase() !== 'GET') return null;
  const formats = parseQuery(req.query).get('format') ?? ['text'];
  const format = formats.length === 1 ? formats[0] : undefined;
  if (format === 'text')
    return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'OK' };
  if (format === 'json') return json(200, { status: 0, message: 'OK', software_version: 'geogate' });
  return {
    status: 400,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: "ERROR 400: Parameter 'format' must be one of: text, json",
  };
}

/** `/status` needs no key: its answer is known at parse time and is the endpoint's state. */
const account: AccountEndpoints<AdapterResponse> = {
  parse: (req) => {
    const answer = nominatimStatus(req);
    return answer ? { needsKey: false, state: answer } : null;
  },
  render: (answer) => answer,
};

/** The Nominatim adapter. */
export const nominatim: Adapter<NominatimState> = {
  name: 'nominatim',
  credentialParams: ['key'],
  providerCredentials: (req) => queryCredentials(req, ['key']),
  parse,
  renderReverse: (state: NominatimState, r: ReverseRecord) =>
    renderNominatim(state as NominatimView, r, r.attribution),
  renderSearch: (state: NominatimState, a: SearchResults) =>
    renderNominatimSearch(state as NominatimSearchView, a),
  renderIp: (_s: NominatimState, _r: IpRecord) =>
    renderError(null, 'not_found', 'IP lookups are not served here', {}),
  renderError,
  account,
};

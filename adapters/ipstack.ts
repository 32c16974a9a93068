/**
 * Drop-in host for ipstack clients: `GET /{ip}?access_key=` and `GET /check` (the caller). ipstack answers errors
 * with HTTP 200 and the classic apilayer envelope `{success:false, error:{code,type,info}}`, always JSON
 * (providers.md 1.13); so does this host.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { callingCodes, emojiFlag, isInEuropeanUnion } from '@rapideditor/country-coder';
import { continentOf } from './common/country';
import { queryCredentials } from './common/credentials';
import { classifyIp, nonIpv4Code } from './common/ip';
import type { ErrorTable, RequestForm } from './common/parse';
import { methodRefusal, refuse, routePath } from './common/parse';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import type {
  Adapter,
  AdapterRequest,
  AdapterResponse,
  BulkAnswer,
  BulkEndpoints,
  BulkParse,
  ParseResult,
} from './types';

/** ipstack needs no rendering options. */
export type IpstackState = Record<string, never>;

/** An ipstack error: numeric `code`, `type` slug and `info` text (HTTP status is always 200). */
export interface IpstackError {
  code: number;
  type: string;
  info: string;
}

/**
 * D24: each gateway code as an ipstack error. Codes and slugs are ipstack's where one fits (101, 102, 103, 104, 106);
 * for refusals ipstack has no equivalent of (IP slots, conflicting keys, server faults) the code is the HTTP status.
 */
export const IPSTACK_ERRORS: ErrorTable<IpstackError> = {
  missing_key: {
    code: 101,
    type: 'missing_access_key',
    info: 'You have not supplied an API Access Key. [Required format: access_key=YOUR_ACCESS_KEY]',
  },
  invalid_key: {
    code: 101,
    type: 'invalid_access_key',
    info: 'You have not supplied a valid API Access Key.',
  },
  key_revoked: {
    code: 101,
    type: 'invalid_access_key',
    info: 'You have not supplied a valid API Access Key.',
  },
  no_credits: {
    code: 104,
    type: 'usage_limit_reached',
    info: 'The free allowance is used and no credit is left.',
  },
  key_ip_limit: { code: 403, type: 'access_restricted', info: 'All IP slots of this key are in use.' },
  account_ip_limit: {
    code: 403,
    type: 'access_restricted',
    info: 'The address limit of this account is reached.',
  },
  account_suspended: { code: 102, type: 'inactive_user', info: 'The current user account is not active.' },
  key_restricted: {
    code: 403,
    type: 'access_restricted',
    info: 'This API key may not be used from this web page or address.',
  },
  quota_exceeded: {
    code: 104,
    type: 'usage_limit_reached',
    info: 'The maximum allowed amount of API requests has been reached.',
  },
  // ipstack documents no per-second limit: its nearest code is the usage limit's.
  rate_limited: {
    code: 104,
    type: 'usage_limit_reached',
    info: 'Too many requests in a short time; try again in a moment.',
  },
  conflicting_credentials: {
    code: 400,
    type: 'conflicting_access_keys',
    info: 'Different access keys were sent.',
  },
  invalid_parameter: { code: 106, type: 'invalid_ip_address', info: 'The IP Address supplied is invalid.' },
  invalid_forwarded: { code: 400, type: 'invalid_forwarded', info: 'The forwarding header is malformed.' },
  ipv4_required: { code: 106, type: 'invalid_ip_address', info: 'Only IPv4 addresses are served.' },
  not_found: { code: 103, type: 'invalid_api_function', info: 'This API Function does not exist.' },
  search_unavailable: { code: 103, type: 'invalid_api_function', info: 'This API Function does not exist.' },
  method_not_allowed: { code: 405, type: 'method_not_allowed', info: 'Only GET is served.' },
  backend_unavailable: { code: 502, type: 'internal_error', info: 'Server error; try again later.' },
  backend_timeout: { code: 504, type: 'internal_error', info: 'Server timeout; try again later.' },
  store_unavailable: { code: 503, type: 'internal_error', info: 'Server error; try again later.' },
  internal: { code: 500, type: 'internal_error', info: 'Server error; try again later.' },
};

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const IPSTACK_FORMS: readonly RequestForm[] = [
  { example: '/8.8.8.8?access_key=K', clients: 'ipstack docs' },
  { example: '/check?access_key=K', clients: "the caller's own address" },
  { example: '/8.8.8.8?access_key=K&output=json', clients: 'output=json' },
  { example: '/8.8.8.8/?access_key=K', clients: 'trailing slash' },
];

/** The bulk forms (one request per address); each is parsed in test/unit/adapters/bulk-forms.test.ts. */
export const IPSTACK_BULK_CALLS: readonly RequestForm[] = [
  { example: '/8.8.8.8,1.1.1.1?access_key=K', clients: 'bulk lookup (up to 50), one request per address' },
  { example: '/8.8.8.8%2C1.1.1.1?access_key=K', clients: 'bulk lookup, encoded comma' },
  {
    example: '/8.8.8.8,1.1.1.1/?access_key=K&output=json',
    clients: 'bulk lookup, trailing slash, output=json',
  },
];

/** ipstack's bulk limit: 50 addresses per call (providers.md 1.13). */
export const IPSTACK_BULK_MAX = 50;

function parse(req: AdapterRequest): ParseResult<IpstackState> {
  const m = /^\/([^/]+)$/.exec(routePath(req.path));
  if (!m) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const output = parseQuery(req.query).get('output')?.[0];
  if (output !== undefined && output !== 'json')
    return refuse('invalid_parameter', 'output', 'output must be json');
  const ip = m[1] as string;
  if (ip === 'check') return { ok: true, request: { call: { kind: 'ipv4', ip: null }, state: {} } };
  // The pipeline serves a comma list through `bulk` (stages/bulk.ts) before parse; parse alone refuses it.
  if (ip.includes(',')) return refuse('invalid_parameter', 'ip', 'Bulk lookups are not supported.');
  if (classifyIp(ip) !== 'ipv4') return refuse(nonIpv4Code(ip), 'ip', 'The IP Address supplied is invalid.');
  return { ok: true, request: { call: { kind: 'ipv4', ip }, state: {} } };
}

/** `GET /{ip1},{ip2},…`: every address must be IPv4; the answer is the array of single answers, in order. */
function parseBulk(req: AdapterRequest): BulkParse<IpstackState> {
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const output = parseQuery(req.query).get('output')?.[0];
  if (output !== undefined && output !== 'json')
    return refuse('invalid_parameter', 'output', 'output must be json');
  const ips = routePath(req.path).slice(1).split(',');
  if (ips.length > IPSTACK_BULK_MAX) {
    return refuse('invalid_parameter', 'ip', `At most ${IPSTACK_BULK_MAX} addresses per bulk lookup.`);
  }
  const bad = ips.find((ip) => classifyIp(ip) !== 'ipv4');
  if (bad !== undefined) return refuse(nonIpv4Code(bad), 'ip', 'The IP Address supplied is invalid.');
  const items = ips.map((ip) => ({ key: ip, call: { kind: 'ipv4' as const, ip }, state: {} }));
  return { ok: true, bulk: { items, state: {} } };
}

/** ipstack's bulk answer: a JSON array of the single answers (errors in their own envelope). */
function renderBulk(_s: IpstackState, answers: readonly BulkAnswer[]): AdapterResponse {
  return {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: `[${answers.map((a) => a.answer.body).join(',')}]`,
  };
}

const bulk: BulkEndpoints<IpstackState> = {
  matches: (req) => req.path.includes(',') && /^\/[^/]+$/.test(routePath(req.path)),
  parse: parseBulk,
  render: renderBulk,
};

function location(cc: string | null): Record<string, unknown> {
  if (cc === null)
    return { geoname_id: null, languages: [], country_flag_emoji: null, calling_code: null, is_eu: null };
  return {
    geoname_id: null,
    languages: [],
    country_flag_emoji: emojiFlag(cc) ?? null,
    calling_code: callingCodes(cc)[0]?.split(' ')[0] ?? null,
    is_eu: isInEuropeanUnion(cc),
  };
}

function renderIp(_s: IpstackState, r: IpRecord): AdapterResponse {
  const continent = continentOf(r.countryCode, r.lat, r.lon);
  return json(200, {
    ip: r.ip,
    type: 'ipv4',
    continent_code: continent?.code ?? null,
    continent_name: continent?.name ?? null,
    country_code: r.countryCode,
    country_name: r.country,
    region_code: null,
    region_name: r.region,
    city: r.city,
    zip: null,
    latitude: r.lat,
    longitude: r.lon,
    location: location(r.countryCode),
    time_zone: r.timezone ? { id: r.timezone } : null,
    connection: { asn: r.asn, isp: r.org },
    attribution: r.attribution,
  });
}

/** Renders a refusal as ipstack does: HTTP 200, `success:false`, the gateway's detail appended to `info`. */
function renderError(
  _s: IpstackState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  const row = IPSTACK_ERRORS[code];
  const info = withTopUp(detail && detail !== row.info ? `${row.info} ${detail}` : row.info, facts);
  return json(200, { success: false, error: { code: row.code, type: row.type, info } });
}

/** The ipstack adapter. */
export const ipstack: Adapter<IpstackState> = {
  name: 'ipstack',
  credentialParams: ['access_key'],
  providerCredentials: (req) => queryCredentials(req, ['access_key']),
  parse,
  renderReverse: (_s: IpstackState, _r: ReverseRecord) => renderError(null, 'not_found', '', {}),
  renderIp,
  renderError,
  bulk: bulk as BulkEndpoints<unknown>,
};

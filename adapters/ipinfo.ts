/**
 * Drop-in host for ipinfo clients: `GET /{ip}/json`, `/{ip}`, `/json` (the caller), and the Lite API `/lite/{ip}`,
 * `/lite/me`. The credential is the `token` query parameter or `Authorization: Bearer` (node-ipinfo sends only the
 * header; providers.md 1.14, 2.5).
 */
import ipaddr from 'ipaddr.js';
import type { IpRecord, ReverseRecord } from '../backend/records';
import { withTopUp, type ErrorFacts, type GatewayCode } from '../gateway/core/errors';
import { continentOf } from './common/country';
import { bearerCredential, queryCredentials } from './common/credentials';
import { classifyIp, nonIpv4Code } from './common/ip';
import type { ErrorTable } from './common/parse';
import { methodRefusal, refuse, routePath, type RequestForm } from './common/parse';
import { compact } from './common/place';
import { parseQuery } from './common/query';
import { json } from './common/respond';
import type {
  AccountEndpoints,
  AccountView,
  Adapter,
  AdapterRequest,
  AdapterResponse,
  BulkAnswer,
  BulkEndpoints,
  BulkItem,
  BulkParse,
  ParseResult,
} from './types';

/** Which ipinfo response layout to render. */
export interface IpinfoState {
  api: 'standard' | 'lite';
  /** A single-field form (`/{ip}/country`, `/city`): the answer is that field as text/plain. */
  field?: IpinfoField;
  /** A batch with `?filter=1`: paths whose lookup failed are left out of the answer (node-ipinfo's `filter`). */
  filter?: boolean;
}

/** The fields ipinfo serves one at a time as text (`curl ipinfo.io/8.8.8.8/country`). */
const FIELDS = ['ip', 'hostname', 'city', 'region', 'country', 'loc', 'org', 'postal', 'timezone'] as const;
export type IpinfoField = (typeof FIELDS)[number];

function isField(text: string): text is IpinfoField {
  return (FIELDS as readonly string[]).includes(text);
}

/** The request forms this host accepts (issue 16 item 1); each is parsed in test/unit/adapters/request-forms.test.ts. */
export const IPINFO_FORMS: readonly RequestForm[] = [
  { example: '/8.8.8.8/json', clients: 'node-ipinfo IPinfoWrapper (Authorization: Bearer)' },
  { example: '/8.8.8.8?token=K', clients: 'curl, ipinfo docs' },
  { example: '/json?token=K', clients: "the caller's own address" },
  { example: '/lite/8.8.8.8', clients: 'node-ipinfo IPinfoLiteWrapper' },
  { example: '/lite/me', clients: 'node-ipinfo IPinfoLiteWrapper, no IP' },
  { example: '/8.8.8.8/country?token=K', clients: 'single field as text (curl ipinfo.io/{ip}/country)' },
  { example: '/city?token=K', clients: "single field of the caller's own address" },
  { example: '/8.8.8.8/json/', clients: 'trailing slash' },
];

/** The batch forms (POST, body after the space); each is parsed in test/unit/adapters/bulk-forms.test.ts. */
export const IPINFO_BULK_CALLS: readonly RequestForm[] = [
  {
    example: '/batch ["8.8.8.8/json","1.1.1.1/country"]',
    clients: 'node-ipinfo getBatch (up to 1000 paths), one request per distinct path',
  },
  { example: '/batch?filter=1 ["8.8.8.8","1.1.1.1/json"]', clients: 'node-ipinfo getBatch with filter' },
  {
    example: '/batch/ ["/8.8.8.8/json","lite/1.1.1.1"]',
    clients: 'leading slash, Lite path, trailing slash',
  },
];

/** ipinfo's batch limit: 1000 paths per call (node-ipinfo BATCH_MAX_SIZE). */
export const IPINFO_BATCH_MAX = 1000;

/** An ipinfo error: `{status, error:{title, message}}` with the same HTTP status. */
export interface IpinfoError {
  status: number;
  title: string;
}

/**
 * D24: each gateway code as an ipinfo error. ipinfo answers a bad IP with 404 "Wrong ip", and quota with 429, which
 * node-ipinfo turns into its ApiLimitError; no credits is a quota to an ipinfo client, so it is 429 too.
 */
export const IPINFO_ERRORS: ErrorTable<IpinfoError> = {
  missing_key: { status: 403, title: 'Unknown token' },
  invalid_key: { status: 403, title: 'Unknown token' },
  key_revoked: { status: 403, title: 'Unknown token' },
  no_credits: { status: 429, title: 'Rate limit exceeded' },
  key_ip_limit: { status: 403, title: 'Forbidden' },
  account_ip_limit: { status: 403, title: 'Forbidden' },
  account_suspended: { status: 403, title: 'Forbidden' },
  key_restricted: { status: 403, title: 'Forbidden' },
  quota_exceeded: { status: 429, title: 'Rate limit exceeded' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  conflicting_credentials: { status: 400, title: 'Bad request' },
  invalid_parameter: { status: 404, title: 'Wrong ip' },
  invalid_forwarded: { status: 400, title: 'Bad request' },
  ipv4_required: { status: 404, title: 'Wrong ip' },
  not_found: { status: 404, title: 'Not found' },
  search_unavailable: { status: 400, title: 'Bad request' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  backend_unavailable: { status: 502, title: 'Bad gateway' },
  backend_timeout: { status: 504, title: 'Gateway timeout' },
  store_unavailable: { status: 503, title: 'Service unavailable' },
  internal: { status: 500, title: 'Internal server error' },
};

/** Splits the path into the IP text ("" for the caller) and the API flavour, or null when no route matches. */
function route(path: string): { ip: string; api: IpinfoState['api']; field?: IpinfoField } | null {
  if (path === '/json') return { ip: '', api: 'standard' };
  const own = path.slice(1);
  if (isField(own)) return { ip: '', api: 'standard', field: own };
  const single = /^\/([^/]+)\/([a-z]+)$/.exec(path);
  if (single && isField(single[2] as string)) {
    return { ip: single[1] as string, api: 'standard', field: single[2] as IpinfoField };
  }
  if (path === '/lite/me') return { ip: '', api: 'lite' };
  const lite = /^\/lite\/([^/]+)$/.exec(path);
  if (lite) return { ip: lite[1] as string, api: 'lite' };
  const standard = /^\/([^/]+)(?:\/json)?$/.exec(path);
  return standard ? { ip: standard[1] as string, api: 'standard' } : null;
}

function parse(req: AdapterRequest): ParseResult<IpinfoState> {
  const r = route(routePath(req.path));
  if (r === null) return null;
  const refusal = methodRefusal(req);
  if (refusal) return refusal;
  const state: IpinfoState = r.field === undefined ? { api: r.api } : { api: r.api, field: r.field };
  if (r.ip === '') return { ok: true, request: { call: { kind: 'ipv4', ip: null }, state } };
  if (classifyIp(r.ip) !== 'ipv4') {
    return refuse(nonIpv4Code(r.ip), 'ip', 'Please provide a valid IPv4 address');
  }
  return { ok: true, request: { call: { kind: 'ipv4', ip: r.ip }, state } };
}

/**
 * `POST /batch` (`?filter=1` accepted): a JSON array of lookup paths (`8.8.8.8/json`, `1.1.1.1/country`, `lite/…`),
 * each naming an IPv4 address; a path given twice is one lookup (the answer is keyed by path).
 */
function parseBatch(req: AdapterRequest, body: Buffer): BulkParse<IpinfoState> {
  if (req.method.toUpperCase() !== 'POST')
    return refuse('method_not_allowed', 'method', 'Use POST for /batch.');
  let paths: unknown;
  try {
    paths = JSON.parse(body.toString('utf8'));
  } catch {
    return refuse('invalid_parameter', 'body', 'The body must be a JSON array of lookup paths.');
  }
  if (!Array.isArray(paths) || paths.length === 0 || !paths.every((p) => typeof p === 'string')) {
    return refuse('invalid_parameter', 'body', 'The body must be a JSON array of lookup paths.');
  }
  const unique = [...new Set(paths as string[])];
  if (unique.length > IPINFO_BATCH_MAX) {
    return refuse('invalid_parameter', 'body', `At most ${IPINFO_BATCH_MAX} paths per batch.`);
  }
  const items: BulkItem<IpinfoState>[] = [];
  for (const key of unique) {
    const r = route(routePath(`/${key.replace(/^\/+/, '')}`));
    if (r === null || classifyIp(r.ip) !== 'ipv4') {
      return refuse(
        'invalid_parameter',
        'body',
        `Not an IPv4 lookup path: ${JSON.stringify(key.slice(0, 64))}.`,
      );
    }
    const state: IpinfoState = r.field === undefined ? { api: r.api } : { api: r.api, field: r.field };
    items.push({ key, call: { kind: 'ipv4', ip: r.ip }, state });
  }
  const filter = parseQuery(req.query).get('filter')?.[0] === '1';
  return { ok: true, bulk: { items, state: filter ? { api: 'standard', filter } : { api: 'standard' } } };
}

/**
 * ipinfo's batch answer: an object keyed by path; a single field is its text, an error its error object (left out
 * with `?filter=1`).
 */
function renderBatch(state: IpinfoState, answers: readonly BulkAnswer[]): AdapterResponse {
  const kept = state.filter === true ? answers.filter((a) => a.answer.status < 400) : answers;
  const members = kept.map(({ key, answer }) => {
    const text = answer.headers['content-type']?.startsWith('text/plain') === true;
    return `${JSON.stringify(key)}:${text ? JSON.stringify(answer.body.replace(/\n$/, '')) : answer.body}`;
  });
  return {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: `{${members.join(',')}}`,
  };
}

const bulk: BulkEndpoints<IpinfoState> = {
  matches: (req) => routePath(req.path) === '/batch',
  parse: parseBatch,
  render: renderBatch,
};

/** ipinfo answers non-public addresses (private, loopback, reserved...) with `{ip, bogon: true}`. */
function isBogon(ip: string): boolean {
  return ipaddr.isValid(ip) && ipaddr.parse(ip).range() !== 'unicast';
}

/** A single field as ipinfo sends it: the value and a newline, text/plain; "undefined" when it is unknown. */
function fieldText(field: IpinfoField, body: Record<string, unknown>): AdapterResponse {
  const value = body[field];
  const text = value === undefined || value === null ? 'undefined' : String(value);
  return { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${text}\n` };
}

function renderIp(state: IpinfoState, r: IpRecord): AdapterResponse {
  if (state.field !== undefined) return fieldText(state.field, standardBody(r));
  if (isBogon(r.ip)) return json(200, { ip: r.ip, bogon: true });
  const asn = r.asn === null ? null : `AS${r.asn}`;
  if (state.api === 'lite') {
    const continent = continentOf(r.countryCode, r.lat, r.lon);
    return json(
      200,
      compact({
        ip: r.ip,
        asn,
        as_name: r.org,
        country_code: r.countryCode,
        country: r.country,
        continent_code: continent?.code,
        continent: continent?.name,
        attribution: r.attribution,
      }),
    );
  }
  return json(200, standardBody(r));
}

/** The standard (`/{ip}/json`) layout; a bogon address is `{ip, bogon: true}`. */
function standardBody(r: IpRecord): Record<string, unknown> {
  if (isBogon(r.ip)) return { ip: r.ip, bogon: true };
  const asn = r.asn === null ? null : `AS${r.asn}`;
  const loc = r.lat !== null && r.lon !== null ? `${r.lat.toFixed(4)},${r.lon.toFixed(4)}` : null;
  const org = asn !== null ? [asn, r.org].filter(Boolean).join(' ') : r.org;
  return compact({
    ip: r.ip,
    city: r.city,
    region: r.region,
    country: r.countryCode,
    loc,
    org,
    timezone: r.timezone,
    attribution: r.attribution,
  });
}

function renderError(
  _s: IpinfoState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  const row = IPINFO_ERRORS[code];
  return json(row.status, {
    status: row.status,
    error: { title: row.title, message: withTopUp(detail || row.title, facts) },
  });
}

/**
 * ipinfo's `GET /me` (issue 16 item 4), not counted: `{"requests":{"day","month","limit","remaining"},"features"}`.
 * The limit is the gateway's daily free allowance (ipinfo's own is monthly); an Unlimited key has no limit (null).
 * ipinfo also echoes the token; this host never writes a key into a body.
 */
const account: AccountEndpoints<IpinfoState> = {
  parse: (req) =>
    routePath(req.path) === '/me' && req.method.toUpperCase() === 'GET'
      ? { needsKey: true, state: { api: 'standard' } }
      : null,
  render: (_state, view: AccountView | null) =>
    json(200, {
      requests: {
        day: view?.today ?? 0,
        month: view?.month ?? 0,
        limit: view?.rate?.limit ?? null,
        remaining: view?.rate?.remaining ?? null,
      },
      features: {},
    }),
};

/** The ipinfo adapter. */
export const ipinfo: Adapter<IpinfoState> = {
  name: 'ipinfo',
  credentialParams: ['token'],
  providerCredentials: (req) => [...queryCredentials(req, ['token']), ...bearerCredential(req)],
  parse,
  renderReverse: (_s: IpinfoState, _r: ReverseRecord) =>
    renderError(null, 'not_found', 'Reverse geocoding is not served here', {}),
  renderIp,
  renderError,
  account,
  bulk: bulk as BulkEndpoints<unknown>,
};

/**
 * The main host (`native` adapter): `GET /v1/reverse?lat&lon`, `GET /v1/ipv4[?ip]` (D22), `GET /v1/search?q`
 * (issue 11), `GET /v1/account` (the caller's allowance, balance and slots, never counted), errors as
 * application/problem+json (D20). Pure functions; the gateway does CORS, counting and forwarding.
 */
import type { IpRecord, ReverseRecord } from '../backend/records';
import {
  codeToStatus,
  problemType,
  TITLES,
  topUpUrl,
  type ErrorFacts,
  type GatewayCode,
} from '../gateway/core/errors';
import { parseQuery, singleParam } from '../gateway/core/query';
import type {
  AccountEndpoints,
  AccountView,
  Adapter,
  AdapterRequest,
  AdapterResponse,
  ParseResult,
  SearchResults,
} from './types';
import { searchCall, searchCountries, searchLanguage, searchLimit, searchText } from './common/search';
import { houseNumberOf, streetOf, suburbOf } from './common/street';

/** The main host needs no per-request render state. */
type NativeState = null;

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** Decimal degrees: optional minus, digits, optional fraction. No '+', exponent, hex, spaces, or Infinity. */
const DECIMAL = /^-?[0-9]{1,3}(?:\.[0-9]{1,15})?$/;
/** Dotted-quad IPv4 without leading zeros. */
const IPV4 =
  /^(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}$/;

type Invalid = { ok: false; code: GatewayCode; detail: string; facts: ErrorFacts };

/** An invalid_parameter result naming the parameter. */
function invalid(parameter: string, detail: string): Invalid {
  return { ok: false, code: 'invalid_parameter', detail, facts: { parameter } };
}

/** Read one coordinate strictly and check its range. */
function coordinate(params: Map<string, string[]>, name: string, max: number): number | Invalid {
  const one = singleParam(params, name);
  if (!one.ok)
    return invalid(
      name,
      `Parameter "${name}" is ${one.reason === 'missing' ? 'required' : 'given more than once'}.`,
    );
  if (!DECIMAL.test(one.value))
    return invalid(name, `Parameter "${name}" must be a decimal number of degrees.`);
  const n = Number(one.value);
  if (!Number.isFinite(n) || Math.abs(n) > max) {
    return invalid(name, `Parameter "${name}" must be between -${max} and ${max}.`);
  }
  return n;
}

/** The single value of an optional parameter; an Invalid when it is repeated. */
function optional(params: Map<string, string[]>, name: string): string | undefined | Invalid {
  const all = params.get(name);
  if (all === undefined) return undefined;
  return all.length > 1 ? invalid(name, `Parameter "${name}" is given more than once.`) : all[0];
}

/** `GET /v1/search?q&limit&countrycodes&lang` (docs/gateway.md): the canonical search call. */
function parseSearch(params: Map<string, string[]>): ParseResult<NativeState> {
  const raw: Record<string, string | undefined> = {};
  for (const name of ['q', 'limit', 'countrycodes', 'lang']) {
    const v = optional(params, name);
    if (typeof v === 'object') return v;
    raw[name] = v;
  }
  const q = searchText(raw['q'], 'q');
  if (!q.ok) return invalid(q.parameter, q.detail);
  const limit = searchLimit(raw['limit'], 'limit', 10);
  if (!limit.ok) return invalid(limit.parameter, limit.detail);
  const countries = searchCountries(raw['countrycodes'], 'countrycodes');
  if (!countries.ok) return invalid(countries.parameter, countries.detail);
  const language = searchLanguage(raw['lang'], 'lang');
  if (!language.ok) return invalid(language.parameter, language.detail);
  const call = searchCall(q.value, {
    limit: limit.value,
    countries: countries.value,
    language: language.value,
  });
  return { ok: true, request: { call, state: null } };
}

/** Parse a main-host request; unknown parameters other than the ones read are ignored. */
function parse(req: AdapterRequest): ParseResult<NativeState> {
  if (req.path !== '/v1/reverse' && req.path !== '/v1/ipv4' && req.path !== '/v1/search') return null;
  const params = parseQuery(req.query);
  if (!params) return invalid('query', 'The query string is not valid percent-encoding.');
  if (req.path === '/v1/search') return parseSearch(params);
  if (req.path === '/v1/reverse') {
    const lat = coordinate(params, 'lat', 90);
    if (typeof lat !== 'number') return lat;
    const lon = coordinate(params, 'lon', 180);
    if (typeof lon !== 'number') return lon;
    return { ok: true, request: { call: { kind: 'reverse', lat, lon }, state: null } };
  }
  if (!params.has('ip')) return { ok: true, request: { call: { kind: 'ipv4', ip: null }, state: null } };
  const ip = singleParam(params, 'ip');
  if (!ip.ok) return invalid('ip', 'Parameter "ip" is given more than once.');
  if (!IPV4.test(ip.value))
    return invalid('ip', 'Parameter "ip" must be an IPv4 address in dotted-quad form.');
  return { ok: true, request: { call: { kind: 'ipv4', ip: ip.value }, state: null } };
}

/** A JSON answer. */
function json(status: number, body: unknown, type = JSON_TYPE): AdapterResponse {
  return { status, headers: { 'content-type': type }, body: JSON.stringify(body) };
}

/** The main host's reverse layout (D22): the address, the place it names, and where the query was. */
function renderReverse(_state: NativeState, r: ReverseRecord): AdapterResponse {
  // Our own backend's records have no street-level field and render as they always did; a connector's (D25) add the
  // street, house number and suburb first, then precision and licence. Two literal shapes, no spreading: V8 keeps
  // both objects fast to build and to serialise.
  const address =
    r.street === undefined
      ? {
          locality: r.locality,
          county: r.county,
          region: r.region,
          region_code: r.regionCode,
          postcode: r.postcode,
          country: r.country,
          country_code: r.countryCode,
        }
      : {
          house_number: houseNumberOf(r),
          street: streetOf(r),
          suburb: suburbOf(r),
          locality: r.locality,
          county: r.county,
          region: r.region,
          region_code: r.regionCode,
          postcode: r.postcode,
          country: r.country,
          country_code: r.countryCode,
        };
  const location = r.lat === null || r.lon === null ? null : { lat: r.lat, lon: r.lon };
  const query = { lat: r.query.lat, lon: r.query.lon };
  if (r.precision === undefined)
    return json(200, {
      query,
      display_name: r.displayName,
      address,
      location,
      distance_km: r.distanceKm,
      timezone: r.timezone,
      attribution: r.attribution,
    });
  return json(200, {
    query,
    display_name: r.displayName,
    address,
    location,
    distance_km: r.distanceKm,
    timezone: r.timezone,
    attribution: r.attribution,
    precision: r.precision,
    licence: r.licence ?? null,
  });
}

/** The main host's search layout (issue 11): the places best first, each laid out as a reverse answer's place. */
function renderSearch(_state: NativeState, a: SearchResults): AdapterResponse {
  return json(200, {
    results: a.results.map((r) => ({
      display_name: r.displayName,
      address: {
        ...(r.street !== undefined
          ? { house_number: houseNumberOf(r), street: streetOf(r), suburb: suburbOf(r) }
          : {}),
        locality: r.locality,
        county: r.county,
        region: r.region,
        region_code: r.regionCode,
        postcode: r.postcode,
        country: r.country,
        country_code: r.countryCode,
      },
      location: r.lat === null || r.lon === null ? null : { lat: r.lat, lon: r.lon },
      bbox: r.bbox,
      relevance: r.relevance,
      timezone: r.timezone,
      ...(r.precision !== undefined ? { precision: r.precision } : {}),
    })),
    attribution: a.attribution,
  });
}

/** The main host's IPv4 layout (D22). */
function renderIp(_state: NativeState, r: IpRecord): AdapterResponse {
  return json(200, {
    ip: r.ip,
    country: r.country,
    country_code: r.countryCode,
    region: r.region,
    city: r.city,
    location: r.lat === null || r.lon === null ? null : { lat: r.lat, lon: r.lon },
    timezone: r.timezone,
    asn: r.asn,
    org: r.org,
    attribution: r.attribution,
  });
}

/** problem+json (RFC 9457, D20) with the spec's code and the facts that apply. */
function renderError(
  _state: NativeState | null,
  code: GatewayCode,
  detail: string,
  facts: ErrorFacts,
): AdapterResponse {
  const status = codeToStatus(code);
  const body: Record<string, unknown> = {
    type: problemType(code, facts.links),
    title: TITLES[code],
    status,
    detail,
    code,
  };
  if (facts.parameter !== undefined) body['parameter'] = facts.parameter;
  if (facts.retryAfter !== undefined) body['retry_after'] = facts.retryAfter;
  if (facts.quotaReset !== undefined) body['quota_reset'] = new Date(facts.quotaReset * 1000).toISOString();
  if (facts.nextSlotFreeAt !== undefined)
    body['next_slot_free_at'] = new Date(facts.nextSlotFreeAt).toISOString();
  if (facts.requestId !== undefined) body['request_id'] = facts.requestId;
  // The way out of a refusal a top-up lifts: the deployment's top-up page (docs/gateway.md, "Errors").
  const topUp = topUpUrl(facts);
  if (topUp !== undefined) body['links'] = { top_up: topUp };
  return json(status, body, PROBLEM_TYPE);
}

/** ISO 8601 of epoch ms, or null. */
function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/**
 * `GET /v1/account` (issue 15 item 5): what the caller's key (or whitelisted address, rule set B) has today, never
 * counted. The allowance is null for Unlimited; `billable_requests` is what the balance still pays for past it.
 */
function renderAccount(view: AccountView): AdapterResponse {
  const d = view.detail;
  if (!d) return renderError(null, 'internal', 'The account view is not available.', {});
  const rate = view.rate;
  return json(200, {
    account: d.account,
    key: d.key,
    allowance:
      rate === null
        ? null
        : {
            limit: rate.limit,
            used: rate.limit - rate.remaining,
            remaining: rate.remaining,
            resets_at: new Date(d.resetsAt).toISOString(),
          },
    requests: { today: view.today, month: view.month },
    balance: d.balance,
    billable_requests: view.paid,
    unlimited: d.unlimitedUntil === null ? null : { until: isoOrNull(d.unlimitedUntil) },
    slots: d.slots.map((s) => ({
      scope: s.scope,
      capacity: s.capacity,
      in_use: s.inUse,
      next_free_at: isoOrNull(s.nextFreeAt),
    })),
  });
}

const account: AccountEndpoints<NativeState> = {
  parse: (req) =>
    req.path === '/v1/account' && (req.method === 'GET' || req.method === 'HEAD')
      ? { needsKey: true, state: null, detail: true }
      : null,
  render: (_state, view) =>
    view === null ? renderError(null, 'missing_key', 'A key is required.', {}) : renderAccount(view),
};

/** The main host adapter. */
export const nativeAdapter: Adapter<NativeState> = {
  name: 'native',
  providerCredentials: () => [],
  credentialParams: ['key'],
  parse,
  renderReverse,
  renderIp,
  renderSearch,
  renderError,
  account,
};

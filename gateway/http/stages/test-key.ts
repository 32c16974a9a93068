/**
 * Stage: a test key's answer (D40). A test key is identified like any key (one lookup, the record says `test`) and
 * then never admitted, forwarded or counted: it answers the scenario the request names, rendered by the host's
 * adapter exactly as the real answer would be, so a client's handling of each answer can be rehearsed on every host.
 * The scenario is the `scenario` query parameter or the `X-Test-Scenario` header: `success` (the default), `401`,
 * `402`, `403` (key_ip_limit) or `429` (quota_exceeded); another value is refused 400 naming `scenario`.
 */
import type { AdapterResponse, BackendCall, BulkAnswer } from '../../../adapters/types';
import type { IpRecord, ReverseRecord } from '../../../backend/records';
import { MESSAGES } from '../../core/errors';
import { quotaHeaders, resetUnix, retryAfterHost, secondsToReset } from '../headers';
import { ANSWERED, NO_HEADERS, type RequestContext, type Refusal } from '../context';
import { send } from './render';

/** The scenarios a test key answers. */
export const SCENARIOS = ['success', '401', '402', '403', '429'] as const;
export type Scenario = (typeof SCENARIOS)[number];

const HOUR = 3_600_000;
const ATTRIBUTION = 'geogate test key: canned data';
const TEST_BODY = JSON.stringify({ test: true, scenario: 'success' });

/** Forward auth (D38): a 2xx lets the proxy reach the backend, so a test key rehearses refusals only there. */
const NO_CANNED: Refusal = Object.freeze({
  code: 'invalid_parameter',
  detail:
    'Behind forward auth a test key answers the scenarios 401, 402, 403 and 429 only: a success would reach the backend.',
  facts: Object.freeze({ parameter: 'scenario' }),
});

/** The scenario a request names, or a refusal of an unknown one. */
function scenarioOf(ctx: RequestContext): Scenario | Refusal {
  const given = new URLSearchParams(ctx.query).get('scenario') ?? ctx.req.headers['x-test-scenario'];
  const value = typeof given === 'string' ? given.trim() : 'success';
  if ((SCENARIOS as readonly string[]).includes(value)) return value as Scenario;
  return {
    code: 'invalid_parameter',
    detail: `A test key answers the scenarios ${SCENARIOS.join(', ')}.`,
    facts: { parameter: 'scenario' },
  };
}

/** The refusal a scenario rehearses, with what the real one carries (when to retry, when a slot frees). */
function scenarioRefusal(ctx: RequestContext, scenario: Exclude<Scenario, 'success'>): Refusal {
  const now = ctx.deps.clock.now();
  switch (scenario) {
    case '401':
      return { code: 'invalid_key', detail: MESSAGES.invalid_key };
    case '402':
      return { code: 'no_credits', detail: MESSAGES.no_credits };
    case '403': {
      const at = now + HOUR;
      return {
        code: 'key_ip_limit',
        detail: `All IP slots of this key are held by other addresses; the next slot frees at ${new Date(at).toISOString()}.`,
        facts: { nextSlotFreeAt: at },
      };
    }
    case '429': {
      const rules = ctx.deps.config.rules;
      const limit = rules.limits.freePerDay;
      return {
        code: 'quota_exceeded',
        detail: MESSAGES.quota_exceeded,
        facts: { retryAfter: secondsToReset(now), quotaReset: resetUnix(now) },
        headers: quotaHeaders(
          rules,
          { used: limit, limit },
          now,
          retryAfterHost(rules, ctx.host.adapter.name),
        ),
      };
    }
  }
}

/**
 * Answer a test key's request (identity set, nothing admitted): a scenario's refusal is returned for the render
 * stage; a success is sent here and ANSWERED returned. An account endpoint's success (`units` 0) is null: its own
 * lane answers it, and it only reads.
 */
export function answerTestKey(ctx: RequestContext, units: number): Refusal | null {
  const scenario = scenarioOf(ctx);
  if (typeof scenario !== 'string') return scenario;
  // Hosts that show the free allowance (OpenCage `rate`) show a full one with a success and a used-up one with a
  // 402 or 429, as real answers do (admit.ts); the other refusals show none.
  const withRate = ctx.host.adapter.withRate;
  const used = scenario === '402' || scenario === '429';
  if (withRate !== undefined && (used || scenario === 'success')) {
    const limit = ctx.deps.config.rules.limits.freePerDay;
    ctx.rate = { limit, remaining: used ? 0 : limit, reset: resetUnix(ctx.deps.clock.now()) };
  }
  if (scenario !== 'success') return scenarioRefusal(ctx, scenario);
  if (units === 0) return null;
  if (!ctx.cannedAnswers) return NO_CANNED;
  const answer = cannedAnswer(ctx);
  send(ctx, withRate !== undefined && ctx.rate !== null ? withRate(answer, ctx.rate) : answer, NO_HEADERS);
  return ANSWERED;
}

/** The host's rendering of canned records for the request's lane. */
function cannedAnswer(ctx: RequestContext): AdapterResponse {
  const adapter = ctx.host.adapter;
  if (ctx.passthrough !== null) {
    return { status: 200, headers: { 'content-type': 'application/json' }, body: TEST_BODY };
  }
  if (ctx.bulk !== null && adapter.bulk !== undefined) {
    const answers: BulkAnswer[] = ctx.bulk.items.map((item) => ({
      key: item.key,
      answer: adapter.renderIp(item.state, cannedIp(item.call)),
    }));
    return adapter.bulk.render(ctx.bulk.state, answers);
  }
  const call = ctx.call;
  if (call.kind === 'reverse') return adapter.renderReverse(ctx.state, cannedReverse(call.lat, call.lon));
  if (call.kind === 'ipv4') return adapter.renderIp(ctx.state, cannedIp(call));
  const search = adapter.renderSearch;
  if (search === undefined) {
    return { status: 200, headers: { 'content-type': 'application/json' }, body: TEST_BODY };
  }
  const place = cannedReverse(call.focus?.lat ?? 48.8584, call.focus?.lon ?? 2.2945);
  return search(ctx.state, { results: [{ ...place, relevance: 1, bbox: null }], attribution: ATTRIBUTION });
}

/** A canned reverse record at the asked point. */
function cannedReverse(lat: number, lon: number): ReverseRecord {
  return {
    query: { lat, lon },
    countryCode: 'FR',
    country: 'France',
    region: 'Île-de-France',
    regionCode: '11',
    county: 'Paris',
    locality: 'Paris',
    postcode: '75007',
    distanceKm: 0,
    displayName: 'Test Place, Paris, Île-de-France, France',
    lat,
    lon,
    timezone: 'Europe/Paris',
    attribution: ATTRIBUTION,
  };
}

/** A canned IP record for the asked address (documentation addresses answer the same). */
function cannedIp(call: BackendCall): IpRecord {
  return {
    ip: call.kind === 'ipv4' && call.ip !== null ? call.ip : '192.0.2.1',
    countryCode: 'FR',
    country: 'France',
    region: 'Île-de-France',
    city: 'Paris',
    lat: 48.8566,
    lon: 2.3522,
    timezone: 'Europe/Paris',
    asn: 64496,
    org: 'geogate test key',
    attribution: ATTRIBUTION,
  };
}

/** Quota headers (D13, D21): IETF RateLimit fields for the daily allowance, plus A's Retry-After or B's X-Quota-*. */
import { nextUtcMidnight } from '../core/clock';
import type { CredentialPosition, RuleSet } from '../policy/ruleset';

/** Used and limit of the daily free counter, as the store reports it. */
export interface Quota {
  used: number;
  limit: number;
}

/** Whole seconds until the next 00:00 UTC (D13), at least 1. */
export function secondsToReset(now: number): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now) - now) / 1000));
}

/** Unix seconds of the next 00:00 UTC (D13: X-Quota-Reset). */
export function resetUnix(now: number): number {
  return nextUtcMidnight(now) / 1000;
}

/**
 * Headers for an answer to a counted identity (admitted or refused). `quota` is null when no free counter applies
 * (an Unlimited key in A) or the store did not read one; `quotaExceeded` adds A's Retry-After.
 */
export function quotaHeaders(
  rules: RuleSet,
  quota: Quota | null,
  now: number,
  quotaExceeded: boolean,
): Record<string, string> {
  const out: Record<string, string> = {};
  const reset = secondsToReset(now);
  if (quota) {
    const remaining = Math.max(0, quota.limit - quota.used);
    out['ratelimit-policy'] = `"daily";q=${quota.limit};w=86400`;
    out['ratelimit'] = `"daily";r=${remaining};t=${reset}`;
  }
  if (rules.quotaHeaders === 'x-quota') {
    out['x-quota-limit'] = String(quota?.limit ?? rules.limits.freePerDay);
    if (quota) out['x-quota-used'] = String(Math.min(quota.used, quota.limit));
    out['x-quota-reset'] = String(resetUnix(now));
  }
  // A 429 says in seconds (at least 1) when the allowance resets (RFC 9110 Retry-After): rule set A on every host
  // (D21), B on the main host (retryAfterHost).
  if (quotaExceeded) out['retry-after'] = String(reset);
  return out;
}

/**
 * Whether a quota_exceeded 429 of this host carries Retry-After: always in rule set A (D21); in B on the main host
 * only. B's drop-in hosts answer as their providers do, without it: common HTTP clients (python-requests' urllib3,
 * under geopy) sleep for a Retry-After on a 429 before they retry, which here means until 00:00 UTC
 * (test/e2e/clients/geopy.test.ts); the reset is in X-Quota-Reset and the RateLimit field.
 */
export function retryAfterHost(rules: RuleSet, adapter: string): boolean {
  return rules.quotaHeaders === 'retry-after' || adapter === 'native';
}

/**
 * The WWW-Authenticate value of a 401 (RFC 9110 11.6.1): one challenge per accepted scheme. Bearer and Basic are
 * standard; a key in a header, the query or a form has no registered scheme, so the `ApiKey` challenge names where
 * it goes. Built once per host (stages/render.ts caches it).
 */
export function authChallenge(
  positions: readonly CredentialPosition[],
  queryParams: readonly string[],
): string {
  const out: string[] = [];
  if (positions.includes('bearer')) out.push('Bearer realm="geogate"');
  if (positions.includes('basic')) out.push('Basic realm="geogate", charset="UTF-8"');
  const headers: string[] = [];
  if (positions.includes('x-api-key')) headers.push('X-API-Key');
  if (positions.includes('x-goog-api-key')) headers.push('X-Goog-Api-Key');
  const query = new Set<string>();
  if (positions.includes('query-key')) query.add('key');
  for (const p of queryParams) if (p !== 'key') query.add(p);
  const key = ['ApiKey realm="geogate"'];
  if (headers.length > 0) key.push(`header="${headers.join(' ')}"`);
  if (query.size > 0) key.push(`query="${[...query].join(' ')}"`);
  if (positions.includes('form-key')) key.push('form="key"');
  if (key.length > 1) out.push(key.join(', '));
  return out.join(', ');
}

/** CORS for the main host (D23): any origin may GET; preflight is answered and never counted (D11). */
export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'RateLimit, RateLimit-Policy, Retry-After, WWW-Authenticate, X-Quota-Limit, X-Quota-Used, X-Quota-Reset, X-Request-Id, Content-Type',
};

/** The preflight answer's headers. */
export const PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, X-API-Key, X-Goog-Api-Key, Content-Type',
  'access-control-max-age': '86400',
  allow: 'GET, HEAD, POST, OPTIONS',
};

/** Quota headers (D13, D21): IETF RateLimit fields for the daily allowance, plus A's Retry-After or B's X-Quota-*. */
import { nextUtcMidnight } from '../core/clock';
import type { RuleSet } from '../policy/ruleset';

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
  } else if (quotaExceeded) {
    out['retry-after'] = String(reset);
  }
  return out;
}

/** CORS for the main host (D23): any origin may GET; preflight is answered and never counted (D11). */
export const CORS_HEADERS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'RateLimit, RateLimit-Policy, Retry-After, X-Quota-Limit, X-Quota-Used, X-Quota-Reset, X-Request-Id, Content-Type',
};

/** The preflight answer's headers. */
export const PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, X-API-Key, X-Goog-Api-Key, Content-Type',
  'access-control-max-age': '86400',
  allow: 'GET, HEAD, POST, OPTIONS',
};

/**
 * The gateway's closed set of error codes, their HTTP statuses, and the one error type.
 * Spec section 7 plus D7, D12, D20, D22 and the operational codes.
 */

/** Codes a request can be refused with by the access rules (spec section 7, D7, D9). */
export type RefusalCode =
  | 'missing_key'
  | 'invalid_key'
  | 'key_revoked'
  | 'no_credits'
  | 'key_ip_limit'
  | 'account_ip_limit'
  | 'account_suspended'
  | 'quota_exceeded';

/** Every code the gateway can answer with. */
export type GatewayCode =
  | RefusalCode
  | 'conflicting_credentials' // D12
  | 'invalid_parameter' // malformed request parameter (names the parameter)
  | 'invalid_forwarded' // D3a: a trusted proxy's forwarding header names no parseable client (names the header)
  | 'ipv4_required' // D22
  | 'not_found' // unknown path
  | 'method_not_allowed'
  | 'backend_unavailable' // 502: backend down or 5xx
  | 'backend_timeout' // 504
  | 'store_unavailable' // 503: state store unreachable (issue 4)
  | 'internal'; // 500: a bug; never expected

/** All gateway codes, for exhaustive tables in tests and adapters. */
export const ALL_GATEWAY_CODES: readonly GatewayCode[] = [
  'missing_key',
  'invalid_key',
  'key_revoked',
  'no_credits',
  'key_ip_limit',
  'account_ip_limit',
  'account_suspended',
  'quota_exceeded',
  'conflicting_credentials',
  'invalid_parameter',
  'invalid_forwarded',
  'ipv4_required',
  'not_found',
  'method_not_allowed',
  'backend_unavailable',
  'backend_timeout',
  'store_unavailable',
  'internal',
];

/** The HTTP status of each code on the main host (D20). Exhaustive: adding a code fails to compile here. */
export function codeToStatus(code: GatewayCode): number {
  switch (code) {
    case 'invalid_parameter':
    case 'invalid_forwarded':
    case 'ipv4_required':
    case 'conflicting_credentials':
      return 400;
    case 'missing_key':
    case 'invalid_key':
    case 'key_revoked':
      return 401;
    case 'no_credits':
      return 402;
    case 'key_ip_limit':
    case 'account_ip_limit':
    case 'account_suspended':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'quota_exceeded':
      return 429;
    case 'internal':
      return 500;
    case 'backend_unavailable':
      return 502;
    case 'store_unavailable':
      return 503;
    case 'backend_timeout':
      return 504;
  }
}

/** Extra facts an error carries; rendered as problem+json members and provider fields. */
export interface ErrorFacts {
  /** The offending parameter or credential position (invalid_parameter, conflicting_credentials). */
  parameter?: string;
  /** Seconds until 00:00 UTC (quota_exceeded in A: Retry-After). */
  retryAfter?: number;
  /** Unix seconds of the next 00:00 UTC (quota_exceeded in B: X-Quota-Reset). */
  quotaReset?: number;
  /** Epoch ms when the next IP slot frees (key_ip_limit, account_ip_limit). */
  nextSlotFreeAt?: number;
}

/**
 * The one error type. `detail` is public text (never a key, never internals);
 * `internal` is for logs only.
 */
export class GatewayError extends Error {
  readonly status: number;
  constructor(
    readonly code: GatewayCode,
    readonly detail: string,
    readonly facts: ErrorFacts = {},
    readonly internal?: string,
  ) {
    super(`${code}: ${detail}`);
    this.status = codeToStatus(code);
  }
}

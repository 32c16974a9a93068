/**
 * The gateway's closed set of error codes, their HTTP statuses, titles and public messages (one table each).
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
  | 'key_restricted'
  | 'quota_exceeded'
  | 'rate_limited'; // burst limits: requests per second or minute

/** Every code the gateway can answer with. */
export type GatewayCode =
  | RefusalCode
  | 'conflicting_credentials' // D12
  | 'invalid_parameter' // malformed request parameter (names the parameter)
  | 'invalid_forwarded' // D3a: a trusted proxy's forwarding header names no parseable client (names the header)
  | 'ipv4_required' // D22
  | 'not_found' // unknown path
  | 'search_unavailable' // 501: a forward lookup on a host whose backend cannot search (issue 11)
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
  'key_restricted',
  'quota_exceeded',
  'rate_limited',
  'conflicting_credentials',
  'invalid_parameter',
  'invalid_forwarded',
  'ipv4_required',
  'not_found',
  'search_unavailable',
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
    case 'key_restricted':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'quota_exceeded':
    case 'rate_limited':
      return 429;
    case 'internal':
      return 500;
    case 'search_unavailable':
      return 501;
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
  /** Seconds until 00:00 UTC (quota_exceeded in A: Retry-After); rate_limited: until its window ends. */
  retryAfter?: number;
  /** rate_limited: the burst window whose limit the request met (LocationIQ names it: "Rate Limited Second"). */
  rateWindow?: 'second' | 'minute';
  /** Unix seconds of the next 00:00 UTC (quota_exceeded in B: X-Quota-Reset). */
  quotaReset?: number;
  /** Epoch ms when the next IP slot frees (key_ip_limit, account_ip_limit). */
  nextSlotFreeAt?: number;
  /** The request id (issue 14 item 2): problem+json `request_id`, and drop-in shapes where a free field fits. */
  requestId?: string;
  /** A top-up lifts this refusal (no credits; the free allowance of an account that pays per request is used up). */
  topUp?: boolean;
  /** Where this deployment explains its problems and sells credit (set by the render stage when configured). */
  links?: ErrorLinks;
}

/** The deployment's customer pages an error points at: each problem's page and the top-up page. */
export interface ErrorLinks {
  /** The problem pages' base: `${problems}${code}` is the page of `code` (e.g. "https://dash.example/problems/"). */
  problems: string;
  /** The page where credit is bought (e.g. "https://dash.example/credit"). */
  topUp: string;
}

/** The problem `type` of a code: its explaining page where the deployment has one, else a URN (RFC 9457). */
export function problemType(code: GatewayCode, links: ErrorLinks | undefined): string {
  return links === undefined ? `urn:geogate:problem:${code}` : `${links.problems}${code}`;
}

/** The top-up page's URL when a top-up lifts the refusal and the deployment has the page, else undefined. */
export function topUpUrl(facts: ErrorFacts): string | undefined {
  return facts.topUp === true ? facts.links?.topUp : undefined;
}

/** The sentence a drop-in host appends to its free-text field when a top-up lifts the refusal. */
export function withTopUp(text: string, facts: ErrorFacts): string {
  const url = topUpUrl(facts);
  return url === undefined ? text : `${text} Top up: ${url}`;
}

/** The title of each code on the main host's problem+json (D20), shared with the admin API's shared codes. */
export const TITLES: Readonly<Record<GatewayCode, string>> = {
  missing_key: 'API key required',
  invalid_key: 'Invalid API key',
  key_revoked: 'API key revoked',
  no_credits: 'No credits left',
  key_ip_limit: 'Too many addresses for this key',
  account_ip_limit: 'Too many addresses for this account',
  account_suspended: 'Account suspended',
  key_restricted: 'API key restricted',
  quota_exceeded: 'Daily quota exceeded',
  rate_limited: 'Too many requests',
  conflicting_credentials: 'Conflicting credentials',
  invalid_parameter: 'Invalid parameter',
  invalid_forwarded: 'Invalid forwarding header',
  ipv4_required: 'IPv4 address required',
  not_found: 'Not found',
  search_unavailable: 'Search unavailable',
  method_not_allowed: 'Method not allowed',
  backend_unavailable: 'Backend unavailable',
  backend_timeout: 'Backend timeout',
  store_unavailable: 'Service unavailable',
  internal: 'Internal error',
};

/**
 * The one table of public messages (issue 9): the gateway's text for each code, used by every host. Where a
 * refusal knows more (the time a slot frees, the parameter at fault) its detail says it; a drop-in adapter may
 * replace the text where its provider's clients read it, in its `clientTexts` (adapters/common/texts.ts).
 */
export const MESSAGES: Readonly<Record<GatewayCode, string>> = {
  missing_key: 'This host requires an API key.',
  invalid_key: 'The API key is not valid.',
  key_revoked: 'The API key was revoked.',
  no_credits: 'The daily free allowance is used up and the account balance is empty.',
  key_ip_limit: 'All IP slots of this key are held by other addresses.',
  account_ip_limit: "The addresses the account's Unlimited plan allows are in use.",
  account_suspended: 'The account is suspended. Contact support.',
  key_restricted: 'This API key is not allowed from this web page or address.',
  quota_exceeded: 'The daily free allowance is used up; it resets at 00:00 UTC.',
  rate_limited: 'Too many requests in a short time; retry after the number of seconds in Retry-After.',
  conflicting_credentials: 'Different keys were sent.',
  invalid_parameter: 'The request was rejected as malformed.',
  invalid_forwarded: 'The forwarding header names no valid client address.',
  ipv4_required: 'The caller is on IPv6: pass an IPv4 address in the "ip" parameter.',
  not_found: 'There is no endpoint at this path.',
  search_unavailable: "This host's geocoding backend has no forward lookup (search).",
  method_not_allowed: 'The method is not allowed.',
  backend_unavailable: 'The geocoding backend is unavailable.',
  backend_timeout: 'The geocoding backend did not answer in time.',
  store_unavailable: 'The service is temporarily unavailable. Try again shortly.',
  internal: 'An internal error occurred.',
};

/** The dashboard's refusals: one class, a closed set of codes, one code → status table. */
import type pino from 'pino';
import { isStoreUnavailable } from '../gateway/store/faults';

export { isStoreUnavailable };

/** Every code the dashboard answers with. */
export type DashboardCode =
  | 'invalid_parameter'
  | 'unauthorized'
  | 'csrf_failed'
  | 'email_unverified'
  | 'second_factor_required'
  | 'not_found'
  | 'not_in_rule_set'
  | 'email_taken'
  | 'invalid_credentials'
  | 'link_invalid'
  | 'whitelist_overlap'
  | 'already_revoked'
  | 'insufficient_balance'
  | 'payment_failed'
  | 'mail_failed'
  | 'payments_not_configured'
  | 'rate_limited'
  | 'payload_too_large'
  | 'store_unavailable'
  | 'internal';

const STATUS: Record<DashboardCode, number> = {
  invalid_parameter: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  link_invalid: 400,
  insufficient_balance: 402,
  csrf_failed: 403,
  email_unverified: 403,
  second_factor_required: 403,
  not_found: 404,
  not_in_rule_set: 404,
  email_taken: 409,
  whitelist_overlap: 409,
  already_revoked: 409,
  payload_too_large: 413,
  rate_limited: 429,
  payment_failed: 502,
  mail_failed: 503,
  payments_not_configured: 503,
  store_unavailable: 503,
  internal: 500,
};

/** A refusal shown to the customer: `message` is public text (never a key, hash or secret). */
export class DashboardError extends Error {
  readonly status: number;
  constructor(
    readonly code: DashboardCode,
    message: string,
    /** The form field the message belongs next to. */
    readonly field?: string,
    /** Seconds until a rate-limited request may be retried. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/** A 400 naming the field. */
export function invalidField(field: string, message: string): DashboardError {
  return new DashboardError('invalid_parameter', message, field);
}

/**
 * A store fault (PostgreSQL, Redis or the SQLite file cannot answer now: `isStoreUnavailable`) is 503
 * store_unavailable, as on the API, with one warning line (the message names the database, never a secret).
 */
export function storeUnavailable(
  logger: pino.Logger,
  err: unknown,
  path: string,
  requestId: string | undefined,
): DashboardError {
  logger.warn({ err: (err as Error).message, path, requestId }, 'dashboard: store unavailable');
  return new DashboardError(
    'store_unavailable',
    'The service is temporarily unavailable. Try again shortly.',
  );
}

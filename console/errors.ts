/** The console's refusals: a closed set of codes, one status each; store and account refusals mapped onto them. */
import { AccountError, InputError } from '../gateway/accounts/errors';
import { StoreConflict } from '../gateway/store/types';
import { DashboardError } from '../dashboard/errors';

export type ConsoleCode =
  | 'invalid_parameter'
  | 'unauthorized'
  | 'invalid_credentials'
  | 'forbidden'
  | 'csrf_failed'
  | 'not_found'
  | 'not_in_rule_set'
  | 'conflict'
  | 'insufficient_balance'
  | 'payload_too_large'
  | 'rate_limited'
  | 'store_unavailable'
  | 'internal';

const STATUS: Record<ConsoleCode, number> = {
  invalid_parameter: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  insufficient_balance: 402,
  forbidden: 403,
  csrf_failed: 403,
  not_found: 404,
  not_in_rule_set: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  store_unavailable: 503,
  internal: 500,
};

/** A refusal shown to the operator (public text: never a key, token or password). */
export class ConsoleError extends Error {
  readonly status: number;
  constructor(
    readonly code: ConsoleCode,
    message: string,
    readonly field?: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/** A 400 naming the field. */
export const invalid = (field: string, message: string): ConsoleError =>
  new ConsoleError('invalid_parameter', message, field);

const CONFLICT_TEXT: Partial<Record<StoreConflict['reason'], string>> = {
  already_revoked: 'The key is already revoked',
  account_deleted: 'The account is deleted; it cannot be changed',
  email_taken: 'That name is taken',
  idempotency_mismatch: 'That reference was used with another amount',
  whitelist_overlap: 'Another account covers that address',
};

/** Map what a route threw onto a ConsoleError, or null when it is none of the known refusals. */
export function knownRefusal(err: unknown): ConsoleError | null {
  if (err instanceof ConsoleError) return err;
  if (err instanceof InputError) return invalid(err.field, err.detail);
  if (err instanceof AccountError) {
    const r = err.refusal;
    if (r.code === 'not_found')
      return new ConsoleError('not_found', `No such ${r.missing.replace('_', ' ')}`);
    if (r.code === 'not_in_rule_set')
      return new ConsoleError('not_in_rule_set', `Not part of this rule set (${r.feature})`);
    return new ConsoleError('insufficient_balance', 'The balance does not cover the price');
  }
  if (err instanceof StoreConflict) {
    if (err.reason === 'not_found') return new ConsoleError('not_found', 'No such item');
    if (err.reason === 'invalid_input') return invalid('input', 'The input is not valid');
    if (err.reason === 'insufficient_balance')
      return new ConsoleError('insufficient_balance', 'The balance does not cover it');
    return new ConsoleError('conflict', CONFLICT_TEXT[err.reason] ?? 'The change conflicts with the account');
  }
  if (err instanceof DashboardError) {
    if (err.code === 'rate_limited')
      return new ConsoleError('rate_limited', err.message, undefined, err.retryAfter);
    if (err.code === 'csrf_failed') return new ConsoleError('csrf_failed', err.message);
    if (err.code === 'invalid_parameter') return invalid(err.field ?? 'input', err.message);
  }
  return null;
}

/** The admin API's problem+json errors (D20 shape) and the one place StoreConflict reasons become statuses. */
import type { Response } from 'express';
import { MESSAGES as GATEWAY_MESSAGES, TITLES as GATEWAY_TITLES } from '../core/errors';
import { StoreConflict } from '../store/types';

/** Every code the admin API answers with. */
export type AdminCode =
  | 'invalid_parameter'
  | 'unauthorized'
  | 'not_found'
  | 'not_in_rule_set'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'email_taken'
  | 'whitelist_overlap'
  | 'idempotency_mismatch'
  | 'already_revoked'
  | 'insufficient_balance'
  | 'account_deleted'
  | 'store_unavailable'
  | 'config_invalid'
  | 'internal';

/** HTTP status of each admin code. Exhaustive: adding a code fails to compile here. */
export function adminStatus(code: AdminCode): number {
  switch (code) {
    case 'invalid_parameter':
      return 400;
    case 'unauthorized':
      return 401;
    case 'insufficient_balance':
      return 402;
    case 'not_found':
    case 'not_in_rule_set':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'email_taken':
    case 'whitelist_overlap':
    case 'idempotency_mismatch':
    case 'already_revoked':
    case 'account_deleted':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'config_invalid':
      return 422;
    case 'unsupported_media_type':
      return 415;
    case 'internal':
      return 500;
    case 'store_unavailable':
      return 503;
  }
}

/** Titles; the codes the admin API shares with the gateway take the gateway's (core/errors.ts, one table). */
const TITLES: Record<AdminCode, string> = {
  invalid_parameter: GATEWAY_TITLES.invalid_parameter,
  unauthorized: 'Unauthorized',
  not_found: GATEWAY_TITLES.not_found,
  not_in_rule_set: 'Not available in this rule set',
  method_not_allowed: GATEWAY_TITLES.method_not_allowed,
  unsupported_media_type: 'Unsupported media type',
  payload_too_large: 'Payload too large',
  email_taken: 'E-mail address already registered',
  whitelist_overlap: 'Address already whitelisted',
  idempotency_mismatch: 'Idempotency key reused with a different request',
  already_revoked: 'Key already revoked',
  insufficient_balance: 'Insufficient balance',
  account_deleted: 'Account deleted',
  store_unavailable: GATEWAY_TITLES.store_unavailable,
  config_invalid: 'The config file was not applied',
  internal: GATEWAY_TITLES.internal,
};

/** A refusal of an admin request; `detail` is public text and never holds a key or the token. */
export class AdminProblem extends Error {
  readonly status: number;
  constructor(
    readonly code: AdminCode,
    readonly detail: string,
    readonly parameter?: string,
    /** Every error found (a config reload's), each as the start-up prints it. */
    readonly errors?: readonly string[],
  ) {
    super(`${code}: ${detail}`);
    this.status = adminStatus(code);
  }
}

/** A 400 invalid_parameter naming the field. */
export function invalid(parameter: string, detail: string): AdminProblem {
  return new AdminProblem('invalid_parameter', `${parameter}: ${detail}`, parameter);
}

/** The StoreConflict reason → admin code and field mapping (the only place it is made). */
const CONFLICTS: Record<StoreConflict['reason'], { code: AdminCode; parameter?: string }> = {
  not_found: { code: 'not_found' },
  email_taken: { code: 'email_taken', parameter: 'email' },
  whitelist_overlap: { code: 'whitelist_overlap', parameter: 'address' },
  insufficient_balance: { code: 'insufficient_balance' },
  idempotency_mismatch: { code: 'idempotency_mismatch', parameter: 'Idempotency-Key' },
  already_revoked: { code: 'already_revoked' },
  // Our validation runs first, so this only shows a gap between it and the store's checks.
  invalid_input: { code: 'invalid_parameter' },
  // Deleted by its owner (issue 15 item 1): kept for accounting, changed by no one.
  account_deleted: { code: 'account_deleted' },
};

/** The admin problem for a StoreConflict. */
export function fromStoreConflict(err: StoreConflict): AdminProblem {
  const { code, parameter } = CONFLICTS[err.reason];
  return new AdminProblem(code, err.message, parameter);
}

/**
 * The problem for a store fault (`isStoreUnavailable`: PostgreSQL or Redis unreachable or stalled, SQLite locked):
 * 503 store_unavailable, as the API answers it; the operator may retry. The detail names no host or address.
 */
export function storeUnavailable(): AdminProblem {
  return new AdminProblem('store_unavailable', GATEWAY_MESSAGES.store_unavailable);
}

/** Write a problem as application/problem+json (RFC 9457). */
export function sendProblem(res: Response, problem: AdminProblem): void {
  const body: Record<string, unknown> = {
    type: `urn:geogate:admin:${problem.code}`,
    title: TITLES[problem.code],
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
  };
  if (problem.parameter !== undefined) body.parameter = problem.parameter;
  if (problem.errors !== undefined) body.errors = problem.errors;
  const requestId: unknown = res.locals['requestId'];
  if (typeof requestId === 'string') body.request_id = requestId;
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(body));
}

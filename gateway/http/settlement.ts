/**
 * D11 as one table: after the backend answers, is the admission kept (charged, counted) or released, and what does
 * the client get? Charged: answers the backend gave (a rendered 200 record, "no result found"). Released: backend
 * errors, timeouts, connection failures, requests rejected as malformed (400), answers the gateway cannot render
 * ("unrenderable"), and clients that left before the answer (nothing was delivered). A passthrough route (D26)
 * reads its status line into the same kinds and keeps by the table's passthrough column.
 */
import { MESSAGES, type GatewayCode } from '../core/errors';
import type { BackendOutcome } from './backend';

/** What the backend's outcome is, in D11's words. */
export type AnswerKind =
  | 'record' // 200 that the host's adapter rendered
  | 'unrenderable' // 200 that is not JSON, has no record shape, or the adapter could not render
  | 'no_result' // 404: "no result found" is an answer the backend gave
  | 'rejected' // 400: the request was malformed
  | 'failed' // any other status (5xx...)
  | 'unavailable' // connection refused, reset, answer too large or aborted
  | 'timeout' // no answer within backend.timeoutMs
  | 'client_gone'; // the client closed its connection first

/** The decision: keep or release, and what to answer (the record, a gateway error, or nothing). */
export interface Settlement {
  readonly kind: AnswerKind;
  readonly keep: boolean;
  /**
   * Keep or release on a passthrough route (D26), whose answer is streamed as the backend gave it: a 400 delivered
   * is an answer given (kept), unlike a translated call's rejected request.
   */
  readonly keepPassthrough: boolean;
  /** 'record': the adapter's rendering; a code: that error in the host's shape; null: nothing (client gone). */
  readonly reply: 'record' | GatewayCode | null;
  /** The public detail of an error reply (the backend's own detail wins where `backendDetail`). */
  readonly detail: string;
  /** Whether the backend problem's `detail` (and `parameter`) is passed on. */
  readonly backendDetail: boolean;
}

const row = (
  kind: AnswerKind,
  keep: boolean,
  reply: Settlement['reply'],
  detail = '',
  backendDetail = false,
  keepPassthrough = keep,
): Settlement => Object.freeze({ kind, keep, keepPassthrough, reply, detail, backendDetail });

/** D11, one row per kind of answer. */
export const D11: Readonly<Record<AnswerKind, Settlement>> = Object.freeze({
  record: row('record', true, 'record'),
  no_result: row('no_result', true, 'not_found', 'No result found.', true),
  unrenderable: row(
    'unrenderable',
    false,
    'backend_unavailable',
    'The geocoding backend gave an unreadable answer.',
  ),
  rejected: row('rejected', false, 'invalid_parameter', 'The request was rejected as malformed.', true, true),
  failed: row('failed', false, 'backend_unavailable', 'The geocoding backend failed.'),
  unavailable: row('unavailable', false, 'backend_unavailable', MESSAGES.backend_unavailable),
  timeout: row('timeout', false, 'backend_timeout', MESSAGES.backend_timeout),
  client_gone: row('client_gone', false, null),
});

/** The kind of a backend outcome; `rendered` tells whether a 200's record could be rendered. */
export function answerKind(outcome: BackendOutcome, rendered: boolean): AnswerKind {
  if (outcome.kind !== 'answer') return outcome.kind;
  if (outcome.status === 200) return rendered ? 'record' : 'unrenderable';
  if (outcome.status === 404) return 'no_result';
  return outcome.status === 400 ? 'rejected' : 'failed';
}

/** Keep or release, and the reply: a pure function of the outcome (D11). */
export function settlementFor(outcome: BackendOutcome, rendered: boolean): Settlement {
  return D11[answerKind(outcome, rendered)];
}

/**
 * The kind of a passthrough answer by its status line (D26): below 500 it is an answer given (404 "no result",
 * 400 rejected, any other a record), whatever then happens to its streaming; 5xx failed.
 */
export function passthroughKind(status: number): AnswerKind {
  if (status === 404) return 'no_result';
  if (status === 400) return 'rejected';
  return status < 500 ? 'record' : 'failed';
}

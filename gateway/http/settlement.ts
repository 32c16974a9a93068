/**
 * D11 as one table: after the backend answers, is the admission kept (charged, counted) or released, and what does
 * the client get? Charged: answers the backend gave (a rendered 200 record, "no result found"). Released: backend
 * errors, timeouts, connection failures, requests rejected as malformed (400), answers the gateway cannot render
 * (issue 13 item 11), and clients that left before the answer (nothing was delivered).
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
): Settlement => Object.freeze({ kind, keep, reply, detail, backendDetail });

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
  rejected: row('rejected', false, 'invalid_parameter', 'The request was rejected as malformed.', true),
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

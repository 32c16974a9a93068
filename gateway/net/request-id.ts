/**
 * Request ids (issue 14 item 2): an incoming X-Request-Id (1–128 of [A-Za-z0-9._:-]) or a W3C traceparent's
 * trace-id is kept only from a trusted proxy (the test of client-address.ts); otherwise one is generated. Hot path:
 * a generated id is a per-process random prefix plus a base-36 counter (no crypto call, no peer parse); an incoming
 * one costs one peer parse per connection (the answer is kept per socket, so keep-alive requests pay a lookup).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Cidr } from './address';
import { isTrusted, peerAddressOn, type Connection } from './client-address';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** version "00"–"fe", 32-hex trace-id (not all zero), 16-hex parent id, 2-hex flags (W3C Trace Context). */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}/;
const ZERO_TRACE = '0'.repeat(32);

const PREFIX = `${randomBytes(6).toString('base64url')}-`;
let counter = 0;

/** A fresh id: unique per process run (random prefix) and within it (counter). */
export function generateRequestId(): string {
  counter = counter === Number.MAX_SAFE_INTEGER ? 1 : counter + 1;
  return PREFIX + counter.toString(36);
}

/** Whether `value` is an acceptable incoming X-Request-Id. */
export function isValidRequestId(value: string): boolean {
  return VALID_ID.test(value);
}

/** The trace-id of a valid traceparent header, or null. */
export function traceIdOf(value: string): string | null {
  if (!TRACEPARENT.test(value) || value.startsWith('ff')) return null;
  const trace = value.slice(3, 35);
  return trace === ZERO_TRACE ? null : trace;
}

/** Whether each connection's peer is a trusted proxy, parsed once per connection (one trustProxy per listener). */
const trustedConnections = new WeakMap<Connection, boolean>();

/** Whether the connection's peer is a trusted proxy (cached per connection). */
export function trustedConnection(socket: Connection, trustProxy: readonly Cidr[]): boolean {
  if (trustProxy.length === 0) return false;
  let trusted = trustedConnections.get(socket);
  if (trusted === undefined) {
    const peer = peerAddressOn(socket);
    trusted = peer !== null && isTrusted(peer, trustProxy);
    trustedConnections.set(socket, trusted);
  }
  return trusted;
}

/** The id a trusted proxy passed (X-Request-Id first, then traceparent), or null. */
function incomingId(headers: IncomingHttpHeaders): string | null {
  const given = headers['x-request-id'];
  if (typeof given === 'string' && isValidRequestId(given)) return given;
  const trace = headers['traceparent'];
  return typeof trace === 'string' ? traceIdOf(trace) : null;
}

/** The request id of a request: a trusted proxy's valid one, else a generated one. */
export function requestIdOf(
  socket: Connection,
  headers: IncomingHttpHeaders,
  trustProxy: readonly Cidr[],
): string {
  if (headers['x-request-id'] === undefined && headers['traceparent'] === undefined)
    return generateRequestId();
  if (!trustedConnection(socket, trustProxy)) return generateRequestId();
  return incomingId(headers) ?? generateRequestId();
}

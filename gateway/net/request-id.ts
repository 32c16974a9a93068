/**
 * Request ids (issue 14 item 2): an incoming X-Request-Id (1–128 of [A-Za-z0-9._:-]) or a W3C traceparent's
 * trace-id is kept only from a trusted proxy (the test of client-address.ts); otherwise one is generated. Hot path:
 * a generated id is a per-process random prefix plus a base-36 counter (no crypto call, no peer parse).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { inCidr, parseAddress, type Cidr } from './address';

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** version "00"–"fe", 32-hex trace-id (not all zero), 16-hex parent id, 2-hex flags (W3C Trace Context). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;
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
  const m = TRACEPARENT.exec(value);
  if (m === null || m[1] === 'ff' || m[2] === ZERO_TRACE) return null;
  return m[2] ?? null;
}

/** Whether the TCP peer is inside one of the trusted proxy blocks. */
function trustedPeer(peer: string | undefined, trustProxy: readonly Cidr[]): boolean {
  if (peer === undefined || trustProxy.length === 0) return false;
  const zone = peer.indexOf('%');
  const address = parseAddress(zone < 0 ? peer : peer.slice(0, zone));
  if (!address) return false;
  for (let i = 0; i < trustProxy.length; i++) if (inCidr(address, trustProxy[i] as Cidr)) return true;
  return false;
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
  peer: string | undefined,
  headers: IncomingHttpHeaders,
  trustProxy: readonly Cidr[],
): string {
  if (headers['x-request-id'] === undefined && headers['traceparent'] === undefined)
    return generateRequestId();
  if (!trustedPeer(peer, trustProxy)) return generateRequestId();
  return incomingId(headers) ?? generateRequestId();
}

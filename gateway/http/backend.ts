/**
 * Forwarding a translated call to the backend. The gateway builds the backend path itself from the adapter's
 * BackendCall (through the backend's connector for a named backend, D25) and sends none of the incoming headers, so
 * no credential can reach the backend. The answer comes back as a value for the pipeline (collected whole, bounded).
 * Transport: an undici Pool (issue 12: Node's http client plus http-proxy-middleware cost about 80 µs per request);
 * http-proxy-middleware stays for streaming passthrough routes, over a keep-alive agent of their own (`poolFor`).
 * The gateway's own timer is the only timeout (docs/benchmarks.md, hot path).
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Url } from 'node:url';
import { Pool, type Dispatcher } from 'undici';
import type { BackendCall } from '../../adapters/types';
import { geogatePath } from '../backends/geogate';
import { backendRequestPath, callHints, usesHints } from '../backends/request';
import type { CompiledBackend } from '../config/backends';

/** What the backend answered, or why it did not. */
export type BackendOutcome =
  | { kind: 'answer'; status: number; body: Buffer }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'timeout' }
  /** The client closed its connection before the backend answered: nothing was delivered. */
  | { kind: 'client_gone' };

/** Forwards one request; never rejects. */
export type Forwarder = ((
  req: IncomingMessage,
  res: ServerResponse,
  call: BackendCall,
  /** The request id, sent as X-Request-Id when the forwarder was built to pass it. */
  requestId?: string,
  /** The named backend the call goes to (D25); a router forwarder picks that backend's own forwarder by it. */
  backend?: CompiledBackend,
) => Promise<BackendOutcome>) & {
  close(): void;
};

const MAX_BACKEND_BODY = 1 << 20;

/** A decimal number without exponent notation (the backend parses strictly). */
function decimal(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** The backend path of a call. `ip` must be filled in by then (the caller's own address for /v1/ipv4). */
export function backendPath(call: BackendCall): string {
  if (call.kind === 'reverse') return `/reverse?lat=${decimal(call.lat)}&lon=${decimal(call.lon)}`;
  if (call.kind === 'search') return geogatePath(call);
  return `/ipv4?ip=${encodeURIComponent(call.ip ?? '')}`;
}

/** The backend origin as the pre-parsed target http-proxy would otherwise build with url.parse per request. */
export function proxyTarget(base: URL): Partial<Url> {
  const port = base.port || (base.protocol === 'https:' ? '443' : '80');
  const hostname = base.hostname.replace(/^\[(.*)\]$/, '$1');
  return { protocol: base.protocol, hostname, port, host: base.host, path: '' };
}

/** The backend request's headers: nothing of the incoming request (D14), only these. */
const ACCEPT_JSON: string[] = ['accept', 'application/json'];

/** Why an outgoing request is aborted when the gateway's timer fires or the client leaves first. */
const ABANDONED = new Error('abandoned by the gateway');

/**
 * Build the forwarder for a backend base URL; `passRequestId` adds X-Request-Id to the backend request. With `named`
 * (D25), the request is its connector's, under its URL prefix, with its operator headers and query parameters.
 * Transport: an undici Pool of keep-alive connections driven by a bare dispatch handler (no stream, no promise per
 * chunk): the whole answer is collected as a value (bounded), which is all the pipeline needs (issue 12).
 */
export function createForwarder(
  base: URL,
  timeoutMs: number,
  passRequestId = false,
  named?: CompiledBackend,
): Forwarder {
  const origin = base.origin;
  // headersTimeout/bodyTimeout 0: the gateway's own timer (`timeoutMs`) is the request's only timeout, so undici arms
  // no timer of its own per request (one fewer timer object made and cleared per request; issue 12).
  const pool = new Pool(origin, {
    connections: 256,
    pipelining: 1,
    keepAliveTimeout: 4_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  // Why: a backend that is down must surface as an outcome of the requests, never as an unhandled 'error'.
  pool.on('connectionError', () => undefined);
  // The plain path keeps its literal header list (no copy per request); a named backend adds its operator headers.
  const fixed: string[] = [...ACCEPT_JSON, ...Object.entries(named?.headers ?? {}).flat()];
  const headersOf = (id: string | undefined): string[] =>
    passRequestId && id !== undefined ? [...fixed, 'x-request-id', id] : fixed;
  const pathOf =
    named === undefined
      ? (call: BackendCall) => backendPath(call)
      : (call: BackendCall, req: IncomingMessage) =>
          backendRequestPath(named, call, usesHints(named) ? callHints(req.url ?? '', req.headers) : {});

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    call: BackendCall,
    requestId?: string,
  ): Promise<BackendOutcome> =>
    new Promise<BackendOutcome>((resolve) => {
      let settled = false;
      let controller: Dispatcher.DispatchController | null = null;
      let status = 0;
      let size = 0;
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => done({ kind: 'timeout' }), timeoutMs);
      const clientGone = (): void => done({ kind: 'client_gone' });
      res.once('close', clientGone);
      function done(o: BackendOutcome): void {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        res.off('close', clientGone);
        if (o.kind !== 'answer' && controller !== null && !controller.aborted) controller.abort(ABANDONED);
        resolve(o);
      }
      // Every incoming header is dropped (credentials, cookies, forwarding headers): the backend sees only these,
      // and the path is the one the gateway built (never the client's query string).
      pool.dispatch(
        { origin, path: pathOf(call, req), method: 'GET', headers: headersOf(requestId) },
        {
          onRequestStart(c) {
            controller = c;
            if (settled) c.abort(ABANDONED);
          },
          onResponseStart(_c, statusCode) {
            status = statusCode;
          },
          onResponseData(c, chunk) {
            size += chunk.length;
            if (size > MAX_BACKEND_BODY) {
              done({ kind: 'unavailable', reason: 'backend answer too large' });
              if (!c.aborted) c.abort(ABANDONED);
            } else chunks.push(chunk);
          },
          onResponseEnd() {
            const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
            done({ kind: 'answer', status, body });
          },
          onResponseError(_c, err) {
            done({ kind: 'unavailable', reason: err.message });
          },
        },
      );
    });
  return Object.assign(forward, {
    close: () => void pool.destroy().catch(() => undefined),
  });
}

/**
 * A keep-alive agent for a backend's passthrough routes (their own pool, D26): https for an https URL (an upstream
 * API), http otherwise; at most `maxSockets` at once, further requests wait for one.
 */
export function poolFor(base: URL, maxSockets: number): http.Agent {
  const options = { keepAlive: true, keepAliveMsecs: 1000, maxSockets, scheduling: 'lifo' as const };
  return base.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/**
 * The streaming transport of passthrough routes (D26): http-proxy-middleware pipes the backend's answer to the client
 * as it comes (no buffering: a 10 MB answer passes with flat gateway memory), over a keep-alive pool of its own per
 * backend, capped at the backend's `passthroughConnections` (further answers wait for a socket), so slow readers
 * never hold the connections its translated calls use. The caller has built the path (prefix kept, credentials
 * stripped) and the headers (an allowlist, never cookies or credentials). The backend's status line is reported as
 * it arrives (the caller decides the charge then, D11); the route's deadline bounds the whole answer; the outcome
 * tells the settle step how it ended.
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { CompiledBackend } from '../config/backends';
import { poolFor, proxyTarget } from './backend';

/** How a passthrough request ended. */
export type PassOutcome =
  /** The backend answered `status` and the answer was delivered whole. */
  | { kind: 'answered'; status: number }
  /** The route's deadline passed while the answer was streaming: it was cut (both sockets closed). */
  | { kind: 'cut'; status: number }
  /** Connection refused, reset, or the answer broke off; `started`: the client already got the status line. */
  | { kind: 'unavailable'; reason: string; started: boolean }
  /** No answer (status line) within the backend's timeout, or the route's deadline when that is sooner. */
  | { kind: 'timeout' }
  /** The client left before the answer was delivered. */
  | { kind: 'client_gone' };

/** What to send: the backend path with query, the headers, the (already read) body, and how the answer is bounded. */
export interface PassRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The whole answer's deadline (the route's), from now. */
  deadlineMs: number;
  /** Response headers passed besides `PASSED_RESPONSE_HEADERS` (lower-case). */
  responseHeaders: ReadonlySet<string>;
  /** Called once when the backend's status line arrives, before anything is sent to the client. */
  onStatus(status: number): void;
}

/** Streams one request to a backend; never rejects. */
export type PassthroughProxy = ((
  req: IncomingMessage,
  res: ServerResponse,
  p: PassRequest,
) => Promise<PassOutcome>) & {
  close(): void;
  /** The backend's passthrough pool. */
  readonly agent: http.Agent;
};

interface Pending {
  done: (o: PassOutcome) => void;
  /** The status line arrived: from now the deadline, not the timeout, bounds the answer. */
  answered(status: number): void;
  extra: ReadonlySet<string>;
  outgoing?: http.ClientRequest;
  settled: boolean;
  started: boolean;
}

/**
 * Response headers a backend's answer keeps (D26): content, caching validators, Retry-After and ranges. Anything else
 * (CORS, HSTS, authentication challenges, redirects, server internals, cookies, an echo of the operator's upstream
 * credential) is dropped unless the route lists it; the gateway's own headers (CORS, request id, quota) always win.
 */
export const PASSED_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'etag',
  'last-modified',
  'cache-control',
  'expires',
  'vary',
  'retry-after',
  'accept-ranges',
  'content-range',
]);

/** Keep the allowed headers of a backend answer that the gateway has not set itself; drop the others in place. */
function filterHeaders(proxyRes: IncomingMessage, res: ServerResponse, extra: ReadonlySet<string>): void {
  const headers = proxyRes.headers;
  for (const name of Object.keys(headers)) {
    if (!(PASSED_RESPONSE_HEADERS.has(name) || extra.has(name)) || res.hasHeader(name)) delete headers[name];
  }
}

/** A request whose body the gateway has read: the proxy's pipe of it sends that body (or none) and ends. */
function withBody(req: IncomingMessage, body: Buffer): void {
  req.pipe = <T extends NodeJS.WritableStream>(dest: T): T => {
    if (body.length > 0) dest.end(body);
    else dest.end();
    return dest;
  };
}

/** Build the streaming proxy of one backend, with its own pool of `passthroughConnections` sockets. */
export function createPassthroughProxy(b: CompiledBackend): PassthroughProxy {
  const pool = poolFor(b.url, b.passthroughConnections);
  const pending = new WeakMap<IncomingMessage, Pending>();
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: proxyTarget(b.url),
    changeOrigin: true,
    agent: pool,
    toProxy: true,
    prependPath: false,
    xfwd: false,
    ejectPlugins: true,
    plugins: [
      (server) => {
        server.on('proxyReq', (proxyReq, req) => {
          const p = pending.get(req);
          if (!p) return;
          // Settled while waiting for a pool socket (timeout, client gone): it never reaches the backend.
          if (p.settled) return void proxyReq.destroy();
          p.outgoing = proxyReq;
        });
        server.on('proxyRes', (proxyRes, req, res) => {
          const p = pending.get(req);
          if (!p || p.settled) return;
          const status = proxyRes.statusCode ?? 502;
          p.answered(status);
          filterHeaders(proxyRes, res, p.extra);
          let ended = false;
          proxyRes.on('end', () => (ended = true));
          proxyRes.on('error', (err) => p.done({ kind: 'unavailable', reason: err.message, started: true }));
          proxyRes.on('aborted', () =>
            p.done({ kind: 'unavailable', reason: 'backend answer aborted', started: true }),
          );
          res.on('finish', () => p.done(ended ? { kind: 'answered', status } : { kind: 'client_gone' }));
        });
        server.on('error', (err, req) => {
          const p = pending.get(req as IncomingMessage);
          p?.done({ kind: 'unavailable', reason: err.message, started: p.started });
        });
        server.on('econnreset', (err, req) => {
          const p = pending.get(req);
          p?.done({ kind: 'unavailable', reason: err.message, started: p.started });
        });
      },
    ],
  });

  const send = (req: IncomingMessage, res: ServerResponse, pr: PassRequest): Promise<PassOutcome> =>
    new Promise<PassOutcome>((resolve) => {
      const sent = Date.now();
      // One timer at a time: first the wait for the status line (the backend's timeout, or the deadline when sooner),
      // then the rest of the deadline while the answer streams.
      let timer = setTimeout(() => done({ kind: 'timeout' }), Math.min(b.timeoutMs, pr.deadlineMs));
      const gone = (): void => {
        if (!res.writableFinished) done({ kind: 'client_gone' });
      };
      res.once('close', gone);
      const p: Pending = {
        done,
        answered(status) {
          p.started = true;
          clearTimeout(timer);
          timer = setTimeout(() => done({ kind: 'cut', status }), pr.deadlineMs - (Date.now() - sent));
          pr.onStatus(status);
        },
        extra: pr.responseHeaders,
        settled: false,
        started: false,
      };
      function done(o: PassOutcome): void {
        if (p.settled) return;
        p.settled = true;
        clearTimeout(timer);
        res.off('close', gone);
        if (o.kind !== 'answered') p.outgoing?.destroy();
        resolve(o);
      }
      pending.set(req, p);
      req.headers = { ...pr.headers };
      if (pr.body.length > 0) req.headers['content-length'] = String(pr.body.length);
      withBody(req, pr.body);
      req.method = pr.method;
      req.url = pr.url;
      void proxy(req, res, (err?: unknown) =>
        done({ kind: 'unavailable', reason: String(err), started: false }),
      );
    });
  return Object.assign(send, { close: () => pool.destroy(), agent: pool });
}

/** One streaming proxy per backend name, created on first use (most backends have no passthrough route). */
export function passthroughProxies(backends: ReadonlyMap<string, CompiledBackend>): {
  of(b: CompiledBackend): PassthroughProxy;
  close(): void;
} {
  const made = new Map<string, PassthroughProxy>();
  return {
    of(b) {
      let p = made.get(b.name);
      if (!p) {
        p = createPassthroughProxy(backends.get(b.name) ?? b);
        made.set(b.name, p);
      }
      return p;
    },
    close: () => made.forEach((p) => p.close()),
  };
}

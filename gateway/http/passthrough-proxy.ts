/**
 * The streaming transport of passthrough routes (D26): http-proxy-middleware pipes the backend's answer to the client
 * as it comes (no buffering: a 10 MB answer passes with flat gateway memory), over the backend's own keep-alive pool.
 * The caller has built the path (prefix kept, credentials stripped) and the headers (an allowlist, never cookies or
 * credentials); the outcome tells the settle step what happened (D11: 5xx, timeouts, connection failures released).
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
  /** Connection refused, reset, or the answer broke off; `started`: the client already got the status line. */
  | { kind: 'unavailable'; reason: string; started: boolean }
  /** No answer (status line) within the backend's timeout. */
  | { kind: 'timeout' }
  /** The client left before the answer was delivered. */
  | { kind: 'client_gone' };

/** What to send: the backend path with query, the headers, and the (already read) body. */
export interface PassRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Streams one request to a backend; never rejects. */
export type PassthroughProxy = ((
  req: IncomingMessage,
  res: ServerResponse,
  p: PassRequest,
) => Promise<PassOutcome>) & {
  close(): void;
};

interface Pending {
  done: (o: PassOutcome) => void;
  outgoing?: http.ClientRequest;
  body: Buffer;
  answered: boolean;
}

/** Response headers the client never gets from a backend (cookies of the upstream's own domain). */
const DROPPED_RESPONSE_HEADERS = ['set-cookie', 'set-cookie2'];

/** Build the streaming proxy of one backend; `agent` is the backend's pool (shared with its translated calls). */
export function createPassthroughProxy(b: CompiledBackend, agent?: http.Agent): PassthroughProxy {
  const own = agent === undefined;
  const pool = agent ?? poolFor(b.url);
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
          p.outgoing = proxyReq;
          // The body was read (bounded) to strip form credentials; http-proxy's pipe of the ended request ends it.
          if (p.body.length > 0) proxyReq.write(p.body);
        });
        server.on('proxyRes', (proxyRes, req, res) => {
          const p = pending.get(req);
          if (!p) return;
          p.answered = true;
          for (const h of DROPPED_RESPONSE_HEADERS) delete proxyRes.headers[h];
          const status = proxyRes.statusCode ?? 502;
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
          p?.done({ kind: 'unavailable', reason: err.message, started: p.answered });
        });
        server.on('econnreset', (err, req) => {
          const p = pending.get(req);
          p?.done({ kind: 'unavailable', reason: err.message, started: p.answered });
        });
      },
    ],
  });

  const send = (req: IncomingMessage, res: ServerResponse, pr: PassRequest): Promise<PassOutcome> =>
    new Promise<PassOutcome>((resolve) => {
      let settled = false;
      // The timeout bounds the wait for the status line; a streaming answer then runs as long as it flows.
      const timer = setTimeout(() => {
        const p = pending.get(req);
        if (p && !p.answered) done({ kind: 'timeout' });
      }, b.timeoutMs);
      const gone = (): void => {
        if (!res.writableFinished) done({ kind: 'client_gone' });
      };
      res.once('close', gone);
      function done(o: PassOutcome): void {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        res.off('close', gone);
        if (o.kind !== 'answered') pending.get(req)?.outgoing?.destroy();
        pending.delete(req);
        resolve(o);
      }
      pending.set(req, { done, body: pr.body, answered: false });
      req.headers = { ...pr.headers };
      if (pr.body.length > 0) req.headers['content-length'] = String(pr.body.length);
      req.method = pr.method;
      req.url = pr.url;
      void proxy(req, res, (err?: unknown) =>
        done({ kind: 'unavailable', reason: String(err), started: false }),
      );
    });
  return Object.assign(send, { close: () => (own ? pool.destroy() : undefined) });
}

/** One streaming proxy per backend name, created on first use (most backends have no passthrough route). */
export function passthroughProxies(
  backends: ReadonlyMap<string, CompiledBackend>,
  agentOf: (name: string) => http.Agent | undefined,
): { of(b: CompiledBackend): PassthroughProxy; close(): void } {
  const made = new Map<string, PassthroughProxy>();
  return {
    of(b) {
      let p = made.get(b.name);
      if (!p) {
        p = createPassthroughProxy(backends.get(b.name) ?? b, agentOf(b.name));
        made.set(b.name, p);
      }
      return p;
    },
    close: () => made.forEach((p) => p.close()),
  };
}

/**
 * Forwarding to the backend with http-proxy-middleware over a keep-alive agent. The gateway builds the backend path
 * itself from the adapter's BackendCall and replaces every incoming header, so no credential can reach the backend.
 * The proxy is used as transport only (selfHandleResponse): the answer comes back as a value for the pipeline.
 * Hot path: the target is parsed once, the backend path is set on the request (no pathRewrite hook, no url.parse
 * per request), and the gateway's own timer is the only timeout (docs/benchmarks.md, hot path).
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Url } from 'node:url';
import { createProxyMiddleware } from 'http-proxy-middleware';
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
  /** The keep-alive pool of a single-backend forwarder (passthrough routes share it: one pool per backend). */
  readonly agent?: http.Agent;
};

interface Pending {
  done: (o: BackendOutcome) => void;
  /** The outgoing request, aborted when the gateway's own timer fires first. */
  outgoing?: http.ClientRequest;
}

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

/**
 * Build the forwarder for a backend base URL; `passRequestId` adds X-Request-Id to the backend request. With `named`
 * (D25), the request is its connector's, under its URL prefix, with its operator headers and query parameters.
 */
export function createForwarder(
  base: URL,
  timeoutMs: number,
  passRequestId = false,
  named?: CompiledBackend,
): Forwarder {
  // The plain path keeps its literal headers (no spread per request); a named backend adds its operator headers.
  const extra = named?.headers;
  const headersOf =
    extra === undefined
      ? (id: string | undefined) =>
          passRequestId && id !== undefined
            ? { accept: 'application/json', 'x-request-id': id }
            : { accept: 'application/json' }
      : (id: string | undefined) =>
          passRequestId && id !== undefined
            ? { accept: 'application/json', ...extra, 'x-request-id': id }
            : { accept: 'application/json', ...extra };
  const pathOf =
    named === undefined
      ? (call: BackendCall) => backendPath(call)
      : (call: BackendCall, req: IncomingMessage) =>
          backendRequestPath(named, call, usesHints(named) ? callHints(req.url ?? '', req.headers) : {});
  // LIFO (Node's default, stated for the reader) reuses the most recently used connection: warm, and the ones left
  // idle are the ones the backend's keep-alive timeout may close.
  const agent = poolFor(base);
  const pending = new WeakMap<IncomingMessage, Pending>();
  const finish = (req: IncomingMessage, o: BackendOutcome): void => pending.get(req)?.done(o);

  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: proxyTarget(base),
    changeOrigin: true,
    selfHandleResponse: true,
    agent,
    // http-proxy's toProxy sends req.url as the path without re-parsing it; req.url is the backend path we built.
    toProxy: true,
    prependPath: false,
    ejectPlugins: true,
    plugins: [
      (server) => {
        server.on('proxyReq', (proxyReq, req) => {
          const p = pending.get(req);
          if (p) p.outgoing = proxyReq;
        });
        server.on('proxyRes', (proxyRes, req) => collect(proxyRes, (o) => finish(req, o)));
        server.on('error', (err, req) =>
          finish(req as IncomingMessage, { kind: 'unavailable', reason: err.message }),
        );
        server.on('econnreset', (err, req) => finish(req, { kind: 'unavailable', reason: err.message }));
      },
    ],
  });

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    call: BackendCall,
    requestId?: string,
  ): Promise<BackendOutcome> =>
    new Promise<BackendOutcome>((resolve) => {
      let settled = false;
      const timer = setTimeout(() => done({ kind: 'timeout' }), timeoutMs);
      const clientGone = (): void => done({ kind: 'client_gone' });
      res.once('close', clientGone);
      function done(o: BackendOutcome): void {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        res.off('close', clientGone);
        if (o.kind === 'timeout' || o.kind === 'client_gone') pending.get(req)?.outgoing?.destroy();
        pending.delete(req);
        resolve(o);
      }
      pending.set(req, { done });
      // Every incoming header is dropped (credentials, cookies, forwarding headers): the backend sees only these,
      // and the path is the one the gateway built (never the client's query string).
      const url = pathOf(call, req);
      req.headers = headersOf(requestId);
      req.method = 'GET';
      req.url = url;
      void proxy(req, res, (err?: unknown) => done({ kind: 'unavailable', reason: String(err) }));
    });
  return Object.assign(forward, { close: () => agent.destroy(), agent });
}

/** A keep-alive pool for a backend: https for an https URL (an upstream API), http otherwise. */
export function poolFor(base: URL): http.Agent {
  const options = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 256, scheduling: 'lifo' as const };
  return base.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

/** Read a backend answer fully (bounded). */
function collect(proxyRes: IncomingMessage, done: (o: BackendOutcome) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  proxyRes.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_BACKEND_BODY) {
      proxyRes.destroy();
      done({ kind: 'unavailable', reason: 'backend answer too large' });
    } else chunks.push(c);
  });
  proxyRes.on('end', () =>
    done({ kind: 'answer', status: proxyRes.statusCode ?? 502, body: Buffer.concat(chunks) }),
  );
  proxyRes.on('error', (err) => done({ kind: 'unavailable', reason: err.message }));
  proxyRes.on('aborted', () => done({ kind: 'unavailable', reason: 'backend answer aborted' }));
}

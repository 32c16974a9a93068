/**
 * The in-process gateway: main listener, one listener per host with its own port, and the admin listener. The
 * dashboard is composed beside it by the composition root (runtime/server.ts); the gateway knows nothing of it.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createAdminApp } from './admin/app';
import type { CompiledConfig, CompiledHost } from './config/compile';
import type { Clock } from './core/clock';
import { loadOpenApiJson, sendOpenApiJson } from './core/openapi-doc';
import type { Forwarder } from './http/backend';
import { createForwarders } from './http/forwarders';
import { passthroughProxies } from './http/passthrough-proxy';
import { createForwardAuth } from './http/forward-auth';
import { createPipeline, type PipelineDeps, type Stages } from './http/pipeline';
import { gatewayReadiness } from './http/readiness';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { measuredStore } from './metrics/measured';
import { limitedServer } from './net/server-limits';
import type { Notifications } from './notify';
import type { ApiKey } from './store/types';
import type { AdmissionStore, Store } from './store/ports';

export interface GatewayDeps {
  config: CompiledConfig;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Admin bearer token; defaults to the config's, else one is generated (read it back from `adminToken`). */
  adminToken?: string;
  /** The backend forwarder; defaults to one over `config.backend` (tests inject their own: no backend process). */
  forward?: Forwarder;
  /** The instance's metrics; a fresh registry when not given. */
  metrics?: GatewayMetrics;
  /** Notifications of this process (D30): allowance alerts on the request path, revocations from the admin API. */
  notifications?: Pick<Notifications, 'allowance' | 'keyRevoked'>;
  /** Wraps the request path's admission store once, at construction (benchmarks' models); none in production. */
  admission?: (store: AdmissionStore) => AdmissionStore;
  /** Request stages replaced at construction (benchmarks' ablations); none in production. */
  stages?: Partial<Stages>;
}

export interface GatewayUrls {
  mainUrl: string;
  adminUrl: string;
  /** Host label → URL of its own listener (hosts with a `port`), or the main URL for name-matched hosts. */
  hostUrls: Record<string, string>;
  /** D38: the forward-auth listener's URL, when the config has one. */
  forwardAuthUrl?: string;
}

export interface Gateway {
  listen(): Promise<GatewayUrls>;
  close(): Promise<void>;
  /** Issue 14: /readyz answers 503 from now on; the listeners keep serving. */
  drain(): void;
  /** Stop accepting, let in-flight requests finish (no bound here: the caller bounds it), release the forwarder. */
  closeGracefully(): Promise<void>;
  /** The admin token in use (never logged). */
  readonly adminToken: string;
  /** The instance's metrics (served at /metrics on the admin listener). */
  readonly metrics: GatewayMetrics;
}

/** The Host header's name without port, lower-case. */
function hostName(header: string | undefined): string {
  if (!header) return '';
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** GET or HEAD. */
function isRead(method: string | undefined): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** Listen on host:port and resolve with the URL. */
export function listenOn(server: http.Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const a = server.address() as AddressInfo;
      const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      resolve(`http://${h}:${a.port}`);
    });
  });
}

/** Close a server, ending idle keep-alive connections. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  });
}

/** How often a draining server closes the keep-alive connections that have become idle. */
const IDLE_SWEEP_MS = 50;

/** Stop accepting and resolve when every connection has ended; idle keep-alive connections are closed as they idle. */
export function drainServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Build a gateway from a compiled config and a store. */
export function createGateway(deps: GatewayDeps): Gateway {
  const { config } = deps;
  const adminToken = deps.adminToken ?? config.admin.token ?? randomBytes(24).toString('base64url');
  const forwarders = deps.forward === undefined ? createForwarders(config.backends) : null;
  const forward = deps.forward ?? (forwarders as Forwarder);
  // D26: passthrough routes stream over a pool of their own per backend (slow readers never hold translated calls').
  const passthrough = passthroughProxies(config.backends);
  const metrics = deps.metrics ?? new GatewayMetrics(config.hosts);
  const cacheStats = deps.store.identityCacheStats?.bind(deps.store);
  if (cacheStats) metrics.watchKeyCache(cacheStats);
  const measured = measuredStore(deps.store, metrics);
  const pipelineDeps: PipelineDeps = {
    ...deps,
    store: deps.admission ? deps.admission(measured) : measured,
    forward,
    metrics,
    passthrough,
    ...(deps.notifications ? { allowance: deps.notifications.allowance } : {}),
  };
  const handle = createPipeline(pipelineDeps, deps.stages);
  // D38: the edge proxy's decision service, on a listener of its own (docs/forward-auth.md).
  const forwardAuth = config.forwardAuth ? createForwardAuth(pipelineDeps, config.forwardAuth) : null;

  const readiness = gatewayReadiness(deps.store, config.backends);
  let draining = false;

  const limits = config.serverLimits;
  const customerDoc = loadOpenApiJson('openapi/customer.yaml');
  /** `docs`: the main listener, where the native host answers /openapi.json before the pipeline (issue 14). */
  const serve = (pick: (req: http.IncomingMessage) => CompiledHost | null, docs = false) =>
    limitedServer(limits.main, (req, res) => {
      const host = pick(req);
      if (!host) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown host\n');
        return;
      }
      if (docs && req.url === '/openapi.json' && host.adapter.name === 'native' && isRead(req.method)) {
        sendOpenApiJson(customerDoc, req, res);
        return;
      }
      handle(host, req, res).catch((err: unknown) => {
        // Only reached when rendering the error itself failed (a broken adapter): answer bare 500, keep serving.
        deps.logger.error({ err }, 'request handler failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      });
    });

  const main = serve((req) => config.hostsByName.get(hostName(req.headers.host)) ?? config.defaultHost, true);
  const perPort = config.hosts
    .filter((h) => h.port !== null)
    .map((h) => ({ host: h, server: serve(() => h) }));
  const admin = limitedServer(
    limits.admin,
    createAdminApp({
      store: deps.store,
      rules: config.rules,
      pepper: config.keyPepper,
      clock: deps.clock,
      token: adminToken,
      logger: deps.logger,
      readiness: () => (draining ? Promise.resolve({ accepting: false }) : readiness()),
      metrics,
      ...(deps.notifications ? { onKeyRevoked: (k: ApiKey) => deps.notifications?.keyRevoked(k) } : {}),
    }),
  );
  const faServer = forwardAuth ? limitedServer(limits.main, forwardAuth.handle) : null;
  const all = [main, admin, ...perPort.map((p) => p.server), ...(faServer ? [faServer] : [])];

  return {
    adminToken,
    metrics,
    async listen() {
      const mainUrl = await listenOn(main, config.listen.host, config.listen.port);
      const adminUrl = await listenOn(admin, config.admin.listen.host, config.admin.listen.port);
      const hostUrls: Record<string, string> = {};
      for (const h of config.hosts) if (h.port === null) hostUrls[h.label] = mainUrl;
      for (const p of perPort)
        hostUrls[p.host.label] = await listenOn(p.server, config.listen.host, p.host.port ?? 0);
      const fa = config.forwardAuth;
      if (faServer === null || fa === null) return { mainUrl, adminUrl, hostUrls };
      const forwardAuthUrl = await listenOn(faServer, fa.listen.host, fa.listen.port);
      return { mainUrl, adminUrl, hostUrls, forwardAuthUrl };
    },
    async close() {
      await Promise.all(all.map(closeServer));
      forwardAuth?.close();
      forward.close();
      passthrough.close();
    },
    drain() {
      draining = true;
    },
    async closeGracefully() {
      await Promise.all(all.map(drainServer));
      forwardAuth?.close();
      forward.close();
      passthrough.close();
    },
  };
}

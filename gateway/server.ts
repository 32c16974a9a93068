/**
 * The in-process gateway: main listener, one listener per host with its own port, and the admin listener. The
 * dashboard is composed beside it by the composition root (runtime/server.ts); the gateway knows nothing of it.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { createAdminApp } from './admin/app';
import type { CompiledConfig, CompiledHost } from './config/compile';
import { ReloadRefused, restartOnlyChanges, type ReloadOutcome } from './config/reload';
import type { Clock } from './core/clock';
import { loadOpenApiJson, sendOpenApiJson } from './core/openapi-doc';
import type { Forwarder } from './http/backend';
import { createForwardAuth } from './http/forward-auth';
import { answerKeyReport, isKeyReport, type KeyReportDeps } from './http/key-report';
import type { HostHandler, PipelineDeps, Stages } from './http/pipeline';
import { gatewayReadiness } from './http/readiness';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { admissionStore, createRequestPath } from './lib/request-path';
import { RefusalLog } from './http/refusal-log';
import { burstShareSource } from './lib/burst-share';
import { BurstLimiter } from './policy/burst';
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
  /** Re-read the config file and apply it (the admin API's POST /admin/reload); absent: the route answers 404. */
  reload?: () => Promise<ReloadOutcome>;
  /**
   * The operator console (composed by runtime/server.ts), served under /console on the admin listener; built for
   * each config generation with its rules, the admin token and the listener's readiness.
   */
  console?: (host: ConsoleHost) => RequestHandler;
}

/** What the gateway gives the console it mounts. */
export interface ConsoleHost {
  config: CompiledConfig;
  adminToken: string;
  readiness: () => Promise<Record<string, boolean>>;
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
  /** The config in force (the last one a reload accepted). */
  readonly config: CompiledConfig;
  /**
   * Serve `next` from now on: hosts, backends, limits and prices. Requests already running finish with the config
   * they started with. Throws ReloadRefused (nothing changed) when a field that needs a restart differs.
   */
  reload(next: CompiledConfig): void;
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

/**
 * What a config builds and a reload replaces: the request handler with its backends' pools, the readiness checks
 * and the admin app. The listeners, the store and the metrics outlive it.
 */
interface Generation {
  config: CompiledConfig;
  /** What the request path of this config runs with (forward auth reads it per request too). */
  pipelineDeps: PipelineDeps;
  handle: HostHandler;
  /** Hosts by label: a host with its own port finds its current entry here. */
  byLabel: Map<string, CompiledHost>;
  admin: http.RequestListener;
  /** The leaked-key report's deps (D39): the config's pepper and trusted proxies. */
  report: KeyReportDeps;
  close(): void;
}

/** Build a gateway from a compiled config and a store. */
export function createGateway(deps: GatewayDeps): Gateway {
  const adminToken = deps.adminToken ?? deps.config.admin.token ?? randomBytes(24).toString('base64url');
  const metrics = deps.metrics ?? new GatewayMetrics(deps.config.hosts);
  const admission = admissionStore(deps.store, metrics, deps.admission);
  const refusals = new RefusalLog(deps.store, deps.clock, deps.logger);
  // Burst windows outlive config generations (a reload swaps the limits, not the counts); the share is the process's.
  const burstShare = burstShareSource(deps.store, deps.config.workers, deps.logger);
  const burst = new BurstLimiter(burstShare.share);
  burstShare.start();
  let draining = false;

  const build = (config: CompiledConfig): Generation => {
    const path = createRequestPath({
      config,
      store: admission,
      clock: deps.clock,
      logger: deps.logger,
      metrics,
      burst,
      ...(deps.forward ? { forward: deps.forward } : {}),
      ...(deps.notifications ? { allowance: deps.notifications.allowance } : {}),
      ...(deps.stages ? { stages: deps.stages } : {}),
      refusals,
    });
    const readiness = gatewayReadiness(deps.store, config.backends);
    const ready = () => (draining ? Promise.resolve({ accepting: false }) : readiness());
    const admin = createAdminApp({
      store: deps.store,
      rules: config.rules,
      pepper: config.keyPepper,
      clock: deps.clock,
      token: adminToken,
      logger: deps.logger,
      readiness: ready,
      metrics,
      ...(deps.console ? { console: deps.console({ config, adminToken, readiness: ready }) } : {}),
      ...(deps.reload ? { reload: deps.reload } : {}),
      ...(deps.notifications ? { onKeyRevoked: (k: ApiKey) => deps.notifications?.keyRevoked(k) } : {}),
    });
    // D39: the leaked-key report on the main host; the owner is told through the notifications when they are on.
    const report: KeyReportDeps = {
      config,
      store: deps.store,
      clock: deps.clock,
      logger: deps.logger,
      ...(deps.notifications
        ? { onReported: (k: ApiKey) => deps.notifications?.keyRevoked(k, 'reported') }
        : {}),
    };
    return {
      config,
      pipelineDeps: path.deps,
      handle: path.handle,
      byLabel: new Map(config.hosts.map((h) => [h.label, h])),
      admin,
      report,
      close: path.close,
    };
  };
  let gen = build(deps.config);
  const first = deps.config;

  const limits = first.serverLimits;
  const customerDoc = loadOpenApiJson('openapi/customer.yaml');
  /** `docs`: the main listener, where the native host answers /openapi.json before the pipeline (issue 14). */
  const serve = (pick: (g: Generation, req: http.IncomingMessage) => CompiledHost | null, docs = false) =>
    limitedServer(limits.main, (req, res) => {
      const g = gen;
      const host = pick(g, req);
      if (!host) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('unknown host\n');
        return;
      }
      if (docs && req.url === '/openapi.json' && host.adapter.name === 'native' && isRead(req.method)) {
        sendOpenApiJson(customerDoc, req, res);
        return;
      }
      if (docs && host.adapter.name === 'native' && isKeyReport(req)) {
        answerKeyReport(g.report, req, res).catch((err: unknown) => {
          deps.logger.error({ err }, 'key report failed');
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('internal error\n');
        });
        return;
      }
      g.handle(host, req, res).catch((err: unknown) => {
        // Only reached when rendering the error itself failed (a broken adapter): answer bare 500, keep serving.
        deps.logger.error({ err }, 'request handler failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('internal error\n');
      });
    });

  const main = serve(
    (g, req) => g.config.hostsByName.get(hostName(req.headers.host)) ?? g.config.defaultHost,
    true,
  );
  const perPort = first.hosts
    .filter((h) => h.port !== null)
    .map((h) => ({ host: h, server: serve((g) => g.byLabel.get(h.label) ?? null) }));
  const admin = limitedServer(limits.admin, (req, res) => gen.admin(req, res));
  // D38: the edge proxy's decision service, on a listener of its own (docs/forward-auth.md); it decides with the
  // config in force, and keeps the admissions it holds across reloads.
  const fa = first.forwardAuth;
  const forwardAuth = fa ? createForwardAuth(() => gen.pipelineDeps, fa) : null;
  const faServer = forwardAuth ? limitedServer(limits.main, forwardAuth.handle) : null;
  const all = [main, admin, ...perPort.map((p) => p.server), ...(faServer ? [faServer] : [])];
  /** Generations replaced by a reload, closed once their requests can no longer need their pools. */
  const retired = new Set<Generation>();
  const closeAll = (): void => {
    void burstShare.stop();
    forwardAuth?.close();
    gen.close();
    for (const g of retired) g.close();
    retired.clear();
  };

  return {
    adminToken,
    metrics,
    get config() {
      return gen.config;
    },
    reload(next) {
      const fields = restartOnlyChanges(gen.config, next);
      if (fields.length > 0) throw new ReloadRefused(fields);
      const old = gen;
      gen = build(next);
      metrics.hostsReloaded(next.hosts);
      // In-flight requests of the old generation finish on its pools: a request is bounded by its listener's
      // request timeout and its backend's timeout, so the pools are closed once both have passed.
      retired.add(old);
      const bound = Math.max(limits.main.requestTimeoutMs, old.config.reservationTimeoutMs) + 1_000;
      setTimeout(() => {
        if (retired.delete(old)) old.close();
      }, bound).unref();
    },
    async listen() {
      refusals.start();
      const mainUrl = await listenOn(main, first.listen.host, first.listen.port);
      const adminUrl = await listenOn(admin, first.admin.listen.host, first.admin.listen.port);
      const hostUrls: Record<string, string> = {};
      for (const h of first.hosts) if (h.port === null) hostUrls[h.label] = mainUrl;
      for (const p of perPort)
        hostUrls[p.host.label] = await listenOn(p.server, first.listen.host, p.host.port ?? 0);
      if (faServer === null || fa === null) return { mainUrl, adminUrl, hostUrls };
      const forwardAuthUrl = await listenOn(faServer, fa.listen.host, fa.listen.port);
      return { mainUrl, adminUrl, hostUrls, forwardAuthUrl };
    },
    async close() {
      await Promise.all(all.map(closeServer));
      closeAll();
      await refusals.stop();
    },
    drain() {
      draining = true;
    },
    async closeGracefully() {
      await Promise.all(all.map(drainServer));
      closeAll();
      await refusals.stop();
    },
  };
}

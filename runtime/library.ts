/**
 * The package's entry (`require('geogate')`, docs/library.md): `createGeogate({ config | configFile, store? })` opens
 * the store and builds the request path once; the gate then serves a host's requests inside an application the
 * operator already runs (an Express/Connect middleware, a Fastify plugin), admits requests of custom flows
 * (`admit`), or runs the standalone listeners (`serve`: what the `geogate-gateway` process runs, runtime/main.ts).
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { createAdminApp } from '../gateway/admin/app';
import { gatewayReadiness } from '../gateway/http/readiness';
import type { ApiKey } from '../gateway/store/types';
import { createMailer } from '../dashboard/mailer';
import { systemClock, type Clock } from '../gateway/core/clock';
import { createLogger } from '../gateway/core/logger';
import type { CompiledConfig, CompiledHost } from '../gateway/config/compile';
import { admitterFor, GeogateArgumentError, type AdmitOptions, type Decision } from '../gateway/lib/admit';
import { fastifyPluginFor, middlewareFor, type FastifyPlugin, type Middleware } from '../gateway/lib/mount';
import { admissionStore, createRequestPath, type RequestPath } from '../gateway/lib/request-path';
import type { GatewayDeps } from '../gateway/server';
import { GatewayMetrics } from '../gateway/metrics/gateway-metrics';
import { createStore, type Store, type StoreConfig } from '../gateway/store';
import { compileConfig, loadConfigFile, validateConfig, type AppConfig } from './config';
import { notificationsOf } from './notifications';
import { createGateway, type Gateway } from './server';

export { ConfigError } from './config';
export {
  GeogateArgumentError,
  type AdmitOptions,
  type Caller,
  type Decision,
  type Outcome,
  type Settled,
} from '../gateway/lib/admit';
export { MountOrderError, type FastifyPlugin, type Middleware } from '../gateway/lib/mount';
export { createStore, type Store, type StoreConfig } from '../gateway/store';

/** How to build a gate: one of `config` (the YAML file's document as an object) and `configFile`. */
export interface GeogateOptions {
  /** The config as its YAML file would hold it; validated like the file (named "config" in messages). */
  config?: Record<string, unknown>;
  /** A YAML config file (docs/gateway.md, "Config reference"). */
  configFile?: string;
  /** An opened store to use instead of the config's; the gate never closes it. */
  store?: Store;
  /** The logger (default: pino on stdout with the config's `log` level and format). */
  logger?: Logger;
  /** `${NAME}` substitution in the config (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/**
 * What a caller of the composition root adds to the gate it builds: the benchmarks' ablations and models (stage
 * replacements, an admission store wrapper, other metrics), built from the config and the opened store. The process
 * entry passes none.
 */
export type Compose = (
  built: Readonly<{ config: CompiledConfig; store: Store }>,
) => Pick<GatewayDeps, 'admission' | 'stages' | 'metrics'>;

/** What the composition root adds (runtime/main.ts): not part of the package's documented options. */
export interface RootOptions {
  clock?: Clock;
  /** The instance's metrics (a worker's, shared with the primary). */
  metrics?: GatewayMetrics;
  /** Store flags of a worker process (`workers: N`). */
  storeFlags?: Partial<
    Pick<
      Extract<StoreConfig, { kind: 'embedded' }>,
      'sharedByProcesses' | 'checkpointedElsewhere' | 'admission'
    >
  >;
  /** The benchmarks' seams (runtime/main.ts `Compose`). */
  compose?: Compose;
}

/** A built gate. */
export interface Geogate {
  /** The compiled config. */
  readonly config: AppConfig;
  /** The store: its management ports (accounts, keys, credit) are the admin API's (docs/admin.md). */
  readonly store: Store;
  /** The gate's metrics (prom-client registry at `metrics.registry`). */
  readonly metrics: GatewayMetrics;
  /** Serve `host`'s requests where it is mounted: `app.use('/geo', gate.middleware({ host: 'api.example.com' }))`. */
  middleware(options?: { host?: string }): Middleware;
  /** The same as a Fastify plugin: `app.register(gate.fastify({ host }), { prefix: '/geo' })`. */
  fastify(options?: { host?: string }): FastifyPlugin;
  /** Admit a request of a custom flow as `units` units; see Decision. */
  admit(req: IncomingMessage, options?: AdmitOptions): Promise<Decision>;
  /**
   * The admin API (docs/admin.md) as a request listener, for a listener of its own (never a public one):
   * `http.createServer(gate.admin()).listen(8081, '127.0.0.1')`. The token: `options.token`, else the config's.
   */
  admin(options?: { token?: string }): RequestListener;
  /**
   * The standalone listeners (main, hosts, admin, dashboard, forward auth) over this gate's config, store,
   * notifications and metrics, as the gateway process runs them; `reload` is the process's reload hook (SIGHUP, POST /admin/reload).
   */
  serve(options?: { adminToken?: string; reload?: GatewayDeps['reload'] }): Gateway;
  /** Stop notifications, release the backend pools and close the store the gate opened. */
  close(): Promise<void>;
}

/** Build a gate from a config; a config that fails validation throws ConfigError naming each field. */
export async function createGeogate(options: GeogateOptions): Promise<Geogate> {
  return openGeogate(compiledConfigOf(options), options);
}

/** The compiled config of `options` (exactly one of `config` and `configFile`). */
function compiledConfigOf(options: GeogateOptions): AppConfig {
  const env = options.env ?? process.env;
  const { config, configFile } = options as { config?: unknown; configFile?: unknown };
  if ((config === undefined) === (configFile === undefined))
    throw new GeogateArgumentError(
      'config',
      'pass exactly one of `config` (an object) and `configFile` (a path)',
    );
  if (configFile !== undefined) {
    if (typeof configFile !== 'string' || configFile === '')
      throw new GeogateArgumentError('configFile', 'a path to a YAML config file');
    return compileConfig(loadConfigFile(configFile, env), configFile);
  }
  return compileConfig(validateConfig(config, 'config', env), 'config');
}

/** Build a gate from a compiled config (the composition root's way in; createGeogate's after loading). */
export async function openGeogate(
  config: AppConfig,
  options: GeogateOptions & RootOptions = {},
): Promise<Geogate> {
  const clock = options.clock ?? systemClock;
  const logger =
    options.logger ?? createLogger({ level: config.logLevel, format: config.logFormat }, 'gateway');
  const ownsStore = options.store === undefined;
  const store =
    options.store ??
    (await createStore(
      {
        ...config.store,
        reservationTimeoutMs: config.reservationTimeoutMs,
        ...storeFlagsOf(config, options),
      },
      { clock, logger },
    ));
  const dash = config.dashboard;
  const mailer = dash ? createMailer(dash, logger) : null;
  const notifications = notificationsOf({ config, store, clock, logger }, mailer);
  const extra = options.compose?.({ config, store }) ?? {};
  const metrics = extra.metrics ?? options.metrics ?? new GatewayMetrics(config.hosts);
  // The gate's own request path, built when a mount or `admit` first needs it (`serve` builds the listeners' own).
  let built: RequestPath | null = null;
  const path = (): RequestPath =>
    (built ??= createRequestPath({
      config,
      store: admissionStore(store, metrics, extra.admission),
      clock,
      logger,
      metrics,
      ...(notifications ? { allowance: notifications.allowance } : {}),
      ...(extra.stages ? { stages: extra.stages } : {}),
    }));
  const hostOf = hostFinder(config);
  let serving: Gateway | null = null;
  let admit: ReturnType<typeof admitterFor> | null = null;
  notifications?.start();
  return {
    config,
    store,
    metrics,
    middleware: (o = {}) => middlewareFor(path().handle, hostOf(o.host), logger),
    fastify: (o = {}) => fastifyPluginFor(path().handle, hostOf(o.host), logger),
    admit: (req, o) => (admit ??= admitterFor(path().deps, hostOf))(req, o),
    admin(o = {}) {
      const token = o.token ?? config.admin.token;
      if (token === undefined || token === null || token.length < 16)
        throw new GeogateArgumentError(
          'token',
          'the admin API needs a bearer token of at least 16 characters',
        );
      return createAdminApp({
        store,
        rules: config.rules,
        pepper: config.keyPepper,
        clock,
        token,
        logger,
        readiness: gatewayReadiness(store, config.backends),
        metrics,
        ...(notifications ? { onKeyRevoked: (k: ApiKey) => notifications.keyRevoked(k) } : {}),
      });
    },
    serve(o = {}) {
      serving ??= createGateway({
        config,
        store,
        clock,
        logger,
        metrics,
        ...(o.adminToken !== undefined ? { adminToken: o.adminToken } : {}),
        ...(o.reload !== undefined ? { reload: o.reload } : {}),
        ...(extra.admission ? { admission: extra.admission } : {}),
        ...(extra.stages ? { stages: extra.stages } : {}),
        ...(mailer ? { mailer } : {}),
        notifications,
      });
      return serving;
    },
    async close() {
      await notifications?.stop();
      if (serving) await serving.close();
      built?.close();
      if (ownsStore) await store.close();
    },
  };
}

/** The store's process flags: the composition root's, else one process owning an embedded file (D33). */
function storeFlagsOf(config: AppConfig, options: RootOptions): RootOptions['storeFlags'] {
  if (options.storeFlags !== undefined) return options.storeFlags;
  return config.store.kind === 'embedded' ? { admission: config.store.admission ?? 'memory' } : {};
}

/** The host a mount or an admission names: by its label (the config's `name`, or "port:N"), else the default host. */
function hostFinder(config: AppConfig): (name: string | undefined) => CompiledHost {
  const byLabel = new Map(config.hosts.map((h) => [h.label, h]));
  const known = () => config.hosts.map((h) => h.label).join(', ');
  return (name) => {
    if (name === undefined) {
      if (config.defaultHost) return config.defaultHost;
      throw new GeogateArgumentError('host', `the config has no default host; name one of: ${known()}`);
    }
    const host =
      typeof name === 'string'
        ? (byLabel.get(name) ?? config.hostsByName.get(name.toLowerCase()))
        : undefined;
    if (host === undefined)
      throw new GeogateArgumentError(
        'host',
        `unknown host "${String(name)}"; the config's hosts are: ${known()}`,
      );
    return host;
  };
}

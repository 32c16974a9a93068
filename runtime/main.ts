/**
 * The process entry (`node dist/gateway/main.js --config FILE`, kept at that path for the Docker image): the gateway
 * (main host, drop-in hosts, admin API) and the dashboard when the config has one. Prints "gateway: ..." lines when
 * ready. The admin token comes from the config, else GEOGATE_ADMIN_TOKEN, else it is kept in a file readable by the
 * owner only (GEOGATE_ADMIN_TOKEN_FILE, else data/admin-token) whose path is printed; the token itself never is.
 */
import { systemClock } from '../gateway/core/clock';
import { ConfigError } from '../gateway/config/load';
import { createLogger, logStartFailure, startupLogger } from '../gateway/core/logger';
import { checkpointFile, createStore } from '../gateway/store';
import { asksVersion, versionLine } from '../gateway/core/version';
import type { Logger } from 'pino';
import { compileConfig, loadConfigFile, type AppConfig } from './config';
import { isWorker, runPrimary, servePrimaryMetrics, shareWorkerMetrics, workerSignals } from './cluster';
import { GatewayMetrics } from '../gateway/metrics/gateway-metrics';
import { drainOnSignals } from './drain';
import { adminTokenFile, keptSecret } from './secret-file';
import type { Gateway } from './server';
import { openGeogate, type Compose } from './library';
import { primaryReload, reloadFromFile, reloadOnSignal, workerReload } from './reload';
import type { ReloadOutcome } from '../gateway/config/reload';
import cluster from 'node:cluster';

/** How long the primary waits at exit for the embedded store's last checkpoint pass (`workers`). */
const EXIT_CHECKPOINT_MS = 2_000;

/** The `--config FILE` argument. */
export function parseArgs(argv: readonly string[]): { config: string } {
  let config: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--config' && argv[i + 1] !== undefined) config = argv[++i] as string;
    else if (a?.startsWith('--config=')) config = a.slice('--config='.length);
    else throw new ConfigError(`unknown argument: ${a ?? ''} (usage: gateway --config FILE)`);
  }
  if (!config) throw new ConfigError('missing --config FILE');
  return { config };
}

/** The admin token and a sentence saying where it comes from (never the token itself). */
export function adminToken(config: AppConfig, env: NodeJS.ProcessEnv): { token: string; source: string } {
  if (config.admin.token) return { token: config.admin.token, source: 'the config file' };
  const fromEnv = env['GEOGATE_ADMIN_TOKEN'];
  if (fromEnv) return { token: fromEnv, source: 'GEOGATE_ADMIN_TOKEN' };
  const file = adminTokenFile(env);
  return { token: keptSecret(file, 24), source: `${file} (mode 0600)` };
}

/** The launcher's line for development mode, or null. */
export function developmentNotice(config: AppConfig): string | null {
  return config.dashboard?.development === true
    ? 'dashboard: DEVELOPMENT MODE: without SMTP, sign-in links are written to the log (never use this in production)'
    : null;
}

/** The benchmarks' seams (runtime/library.ts). */
export type { Compose } from './library';

async function main(compose?: Compose): Promise<void> {
  const { config: file } = parseArgs(process.argv.slice(2));
  const config = compileConfig(loadConfigFile(file), file);
  const logger = createLogger({ level: config.logLevel, format: config.logFormat }, 'gateway');
  const token = adminToken(config, process.env);
  if (config.workers > 1 && !isWorker()) return primary(config, token.source, logger);
  // With workers, the embedded store's file is written by every worker (docs/decisions.md, "Several processes") and
  // checkpointed by the primary alone; admissions are direct unless the config says memory, where each worker holds
  // leases on the file's rows (D33, docs/shared-state.md). One process owns the file and decides in memory unless
  // the config says direct.
  const shared =
    config.store.kind !== 'embedded'
      ? {}
      : config.workers > 1
        ? {
            sharedByProcesses: true,
            checkpointedElsewhere: true,
            admission: config.store.admission ?? ('direct' as const),
          }
        : { admission: config.store.admission ?? ('memory' as const) };
  const metrics = new GatewayMetrics(config.hosts);
  if (isWorker()) shareWorkerMetrics(metrics);
  // The process is the library's entry with its listeners (runtime/library.ts).
  const gate = await openGeogate(config, {
    clock: systemClock,
    logger,
    metrics,
    storeFlags: shared,
    ...(compose ? { compose } : {}),
  });
  let running: Gateway | null = null;
  const apply = (): ReloadOutcome =>
    running
      ? reloadFromFile(file, running, logger)
      : { applied: false, errors: ['the gateway is still starting'] };
  const reload = isWorker() ? workerReload(apply) : reloadOnSignal(apply);
  const gateway = gate.serve({ adminToken: token.token, reload });
  running = gateway;
  const urls = await gateway.listen();
  // Start-up lines are JSON log lines too (issue 14), printed whatever the level; each URL is followed by a space so
  // it can be read from `msg`.
  const start = startupLogger(logger);
  start.info(`gateway: admin token in ${token.source}`);
  const mainUrl = urls.mainUrl;
  start.info({ url: mainUrl }, `gateway: rule set ${config.rules.name}, listening on ${mainUrl} (main host)`);
  for (const [name, url] of Object.entries(urls.hostUrls))
    start.info({ host: name, url }, `gateway: host ${name} on ${url} (host)`);
  start.info({ url: urls.adminUrl }, `gateway: admin API on ${urls.adminUrl} (bearer token)`);
  if (urls.forwardAuthUrl)
    start.info(
      { url: urls.forwardAuthUrl },
      `gateway: forward auth on ${urls.forwardAuthUrl} (trusted proxies)`,
    );
  if (urls.dashboardUrl)
    start.info({ url: urls.dashboardUrl }, `gateway: dashboard on ${urls.dashboardUrl} (customers)`);
  const notice = developmentNotice(config);
  if (notice) start.warn(notice);
  drainOnSignals({
    target: gateway,
    release: () => gate.close(),
    delayMs: config.drain.delayMs,
    timeoutMs: config.drain.timeoutMs,
    logger,
    ...(isWorker() ? { signals: workerSignals() } : {}),
  });
}

/**
 * `workers: N` (runtime/cluster.ts): bring the store's schema up to date once (and create the admin token file once,
 * done by the caller), then fork the workers; each runs main() and prints its own start-up lines.
 */
async function primary(config: AppConfig, tokenSource: string, logger: Logger): Promise<void> {
  // Alone on the file for now: it folds what a memory owner's journal still holds (a run with one worker before).
  const owner = config.store.kind === 'embedded' ? { admission: 'memory' as const } : {};
  const store = await createStore({ ...config.store, ...owner }, { clock: systemClock, logger });
  await store.close();
  // The embedded store's one checkpointer (the workers run none). At exit it makes one more pass, waited for at most
  // EXIT_CHECKPOINT_MS: the WAL is durable without it, and the next process to open the file checkpoints it anyway.
  const checkpoints = checkpointFile(config.store, { clock: systemClock, logger });
  const start = startupLogger(logger);
  start.info(`gateway: admin token in ${tokenSource}`);
  servePrimaryMetrics();
  primaryReload(() => Object.values(cluster.workers ?? {}).filter((w) => w !== undefined), logger);
  await runPrimary({
    workers: config.workers,
    logger,
    drainBoundMs: config.drain.delayMs + config.drain.timeoutMs,
    exit: (code) => {
      const bound = new Promise<void>((resolve) => setTimeout(resolve, EXIT_CHECKPOINT_MS).unref());
      void Promise.race([checkpoints?.stop() ?? Promise.resolve(), bound]).finally(() => process.exit(code));
    },
  });
  start.info({ workers: config.workers }, `gateway: ${config.workers} worker processes on the same ports`);
}

/** `--help` text of the gateway process. */
export const GATEWAY_USAGE = [
  'usage: node dist/gateway/main.js --config FILE',
  '  --config FILE   the YAML config (docs/gateway.md, "Config reference"); check it with `geogate config check FILE`',
  '  --version       print the version and exit',
  '  --help          print this text and exit',
].join('\n');

/** Run the process (`compose`: see Compose): exit 2 on a config error, 1 on any other start failure. */
export function run(compose?: Compose): void {
  const argv = process.argv.slice(2);
  if (asksVersion(argv)) return void console.log(versionLine('geogate-gateway'));
  if (argv.includes('--help') || argv.includes('-h')) return void console.log(GATEWAY_USAGE);
  main(compose).catch((err: unknown) => {
    logStartFailure('gateway', err instanceof ConfigError ? err.message : (err as Error).message);
    console.error(
      err instanceof ConfigError ? err.message : `gateway: failed to start: ${(err as Error).message}`,
    );
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
}

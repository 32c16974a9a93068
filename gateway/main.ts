/**
 * `node dist/gateway/main.js --config FILE`: runs the gateway alone (main host, drop-in hosts, admin API).
 * Prints "gateway: listening on URL" lines when ready. The admin token comes from the config, else
 * GEOGATE_ADMIN_TOKEN, else one is generated and printed once (never logged again).
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { compileConfig } from './config/compile';
import { ConfigError, loadConfigFile } from './config/load';
import { systemClock } from './core/clock';
import { createLogger, logStartFailure, startupLogger } from './core/logger';
import { createGateway } from './server';
import { createStore } from './store';

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

/**
 * stdout, written asynchronously: one request line per request stays, but under load the lines queued while a write
 * is in flight go out together instead of one blocking write each. pino flushes what is left on exit.
 */
export function logDestination(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false });
}

async function main(): Promise<void> {
  const { config: file } = parseArgs(process.argv.slice(2));
  const config = compileConfig(loadConfigFile(file), file);
  const logger = createLogger({ level: config.logLevel, format: config.logFormat }, 'gateway');
  const envToken = process.env['GEOGATE_ADMIN_TOKEN'];
  const generated = !config.admin.token && !envToken;
  const adminToken = config.admin.token ?? (envToken || randomBytes(24).toString('base64url'));
  const store = await createStore(config.store, { clock: systemClock, logger });
  const gateway = createGateway({ config, store, clock: systemClock, logger, adminToken });
  const urls = await gateway.listen();
  // Start-up lines are JSON log lines too (issue 14), printed whatever the level (as before); each URL is followed by
  // a space so it can be read from `msg`.
  const start = startupLogger(logger);
  if (generated) start.info(`gateway: generated admin token (shown once): ${adminToken} (not logged again)`);
  const mainUrl = urls.mainUrl;
  start.info({ url: mainUrl }, `gateway: rule set ${config.rules.name}, listening on ${mainUrl} (main host)`);
  for (const [name, url] of Object.entries(urls.hostUrls))
    start.info({ host: name, url }, `gateway: host ${name} on ${url} (host)`);
  start.info({ url: urls.adminUrl }, `gateway: admin API on ${urls.adminUrl} (bearer token)`);
  if (urls.dashboardUrl)
    start.info({ url: urls.dashboardUrl }, `gateway: dashboard on ${urls.dashboardUrl} (customers)`);
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    gateway
      .close()
      .then(() => store.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    logStartFailure('gateway', err instanceof ConfigError ? err.message : (err as Error).message);
    console.error(
      err instanceof ConfigError ? err.message : `gateway: failed to start: ${(err as Error).message}`,
    );
    process.exit(err instanceof ConfigError ? 2 : 1);
  });
}

/**
 * `npm start`: the backend and the gateway together on the embedded store with an example config
 * (`--policy A|B`, default A, or `--config FILE`). Keeps the store, the key pepper, the admin token and the
 * dashboard's session secret in the data folder (outside the checkout unless told: `--data DIR`, GEOGATE_DATA_DIR,
 * else $XDG_DATA_HOME/geogate or ~/.local/share/geogate) so keys, the CLI and dashboard sessions keep working across
 * restarts, and prints the URLs and how to create a first key. `--help` prints the options and starts nothing.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startBackend } from '../backend/server';
import { systemClock } from '../gateway/core/clock';
import { createLogger, logStartFailure, startupLogger } from '../gateway/core/logger';
import { createStore } from '../gateway/store';
import { repoRoot } from '../gateway/core/paths';
import { versionLine } from '../gateway/core/version';
import { compileConfig, loadConfigFile } from '../runtime/config';
import { drainOnSignals } from '../runtime/drain';
import { developmentNotice } from '../runtime/main';
import { keptSecret } from '../runtime/secret-file';
import { createGateway, type Gateway } from '../runtime/server';
import { reloadFromFile, reloadOnSignal } from '../runtime/reload';

/** `--help` text. */
export const START_USAGE = [
  'usage: npm start [-- OPTIONS]   (or node dist/scripts/start.js [OPTIONS])',
  'Runs the geocoding backend and the gateway (main host, admin API, dashboard) on the embedded store.',
  '  --policy A|B    the example config of rule set A or B (config/example-a.yaml, default A)',
  '  --config FILE   your own config file instead (check it first: geogate config check FILE)',
  '  --data DIR      the data folder: store, key pepper, admin token, dashboard secret',
  '                  (default: $GEOGATE_DATA_DIR, else $XDG_DATA_HOME/geogate, else ~/.local/share/geogate)',
  '  --version       print the version and exit',
  '  --help          print this text and exit',
  'Environment: BACKEND_PORT (default 8090), GEOGATE_ADMIN_TOKEN, GEOGATE_KEY_PEPPER, GEOGATE_DASHBOARD_SECRET.',
].join('\n');

/** The launcher's options. */
export interface StartOptions {
  help: boolean;
  version: boolean;
  config: string | null;
  policy: 'A' | 'B';
  data: string | null;
}

/** Parse the launcher's arguments strictly; throws naming the bad one. */
export function parseStartArgs(argv: string[]): StartOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
      config: { type: 'string' },
      policy: { type: 'string' },
      data: { type: 'string' },
    },
  });
  const policy = values.policy ?? 'A';
  if (policy !== 'A' && policy !== 'B') throw new Error('--policy must be A or B');
  return {
    help: values.help === true,
    version: values.version === true,
    config: values.config ?? null,
    policy,
    data: values.data ?? null,
  };
}

/** The data folder: `--data`, else GEOGATE_DATA_DIR, else the user's XDG data folder (never the checkout). */
export function dataFolder(opts: StartOptions, env: NodeJS.ProcessEnv): string {
  if (opts.data) return path.resolve(opts.data);
  if (env['GEOGATE_DATA_DIR']) return path.resolve(env['GEOGATE_DATA_DIR']);
  const xdg = env['XDG_DATA_HOME'];
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), '.local', 'share'), 'geogate');
}

async function main(): Promise<void> {
  let opts: StartOptions;
  try {
    opts = parseStartArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`start: ${(err as Error).message}\n${START_USAGE}`);
    process.exit(2);
  }
  if (opts.version) return void console.log(versionLine('geogate-start'));
  if (opts.help) return void console.log(START_USAGE);
  const root = repoRoot();
  const dataDir = dataFolder(opts, process.env);
  mkdirSync(dataDir, { recursive: true });
  const pepperFile = path.join(dataDir, 'key-pepper');
  const tokenFile = path.join(dataDir, 'admin-token');
  const sessionFile = path.join(dataDir, 'dashboard-secret');
  const backendPort = Number(process.env['BACKEND_PORT'] ?? 8090);

  const backend = await startBackend({ port: backendPort });
  const env = {
    ...process.env,
    GEOGATE_DATA_DIR: dataDir,
    GEOGATE_BACKEND_URL: backend.url,
    GEOGATE_KEY_PEPPER: process.env['GEOGATE_KEY_PEPPER'] || keptSecret(pepperFile),
    GEOGATE_DASHBOARD_SECRET: process.env['GEOGATE_DASHBOARD_SECRET'] || keptSecret(sessionFile),
  };
  const file = opts.config
    ? path.resolve(opts.config)
    : path.join(root, 'config', `example-${opts.policy.toLowerCase()}.yaml`);
  const config = compileConfig(loadConfigFile(file, env), file);
  const adminToken = config.admin.token ?? (process.env['GEOGATE_ADMIN_TOKEN'] || keptSecret(tokenFile));
  const logger = createLogger({ level: config.logLevel, format: config.logFormat }, 'gateway');
  const store = await createStore(
    { ...config.store, reservationTimeoutMs: config.reservationTimeoutMs },
    { clock: systemClock, logger },
  );
  let running: Gateway | null = null;
  const reload = reloadOnSignal(() =>
    running
      ? reloadFromFile(file, running, logger, env)
      : { applied: false, errors: ['the gateway is still starting'] },
  );
  const gateway = createGateway({ config, store, clock: systemClock, logger, adminToken, reload });
  running = gateway;
  const urls = await gateway.listen();

  const tokenHint = config.admin.token
    ? `the config (${file})`
    : process.env['GEOGATE_ADMIN_TOKEN']
      ? 'GEOGATE_ADMIN_TOKEN'
      : tokenFile;
  // One JSON log line per banner line (issue 14); a URL is always followed by a space.
  const banner = [
    `geogate is running (rule set ${config.rules.name}, config ${path.relative(root, file)})`,
    `  main host:   ${urls.mainUrl}   e.g. curl '${urls.mainUrl}/v1/reverse?lat=48.8584&lon=2.2945'`,
    `  admin API:   ${urls.adminUrl}   (bearer token in ${tokenHint})`,
    ...(urls.dashboardUrl ? [`  dashboard:   ${urls.dashboardUrl}   (customers)`] : []),
    `  backend:     ${backend.url}   (geocoding)`,
    `  store:       ${config.store.kind === 'embedded' ? config.store.path : 'shared'}`,
    `  data folder: ${dataDir}`,
    ...[developmentNotice(config)].filter((n): n is string => n !== null).map((n) => `  ${n}`),
    '',
    'Create a first account and key with the CLI:',
    `  export GEOGATE_ADMIN_URL=${urls.adminUrl}`,
    `  export GEOGATE_ADMIN_TOKEN=$(cat ${tokenFile})`,
    config.rules.signupNeedsNameAndPassword
      ? "  echo 'a long password' | node dist/gateway/cli/main.js accounts create --email you@example.com --name You --password-stdin"
      : '  node dist/gateway/cli/main.js accounts create --email you@example.com',
    '  node dist/gateway/cli/main.js keys create <account id>',
    `  curl -H 'X-API-Key: <key>' '${urls.mainUrl}/v1/ipv4?ip=8.8.8.8'`,
  ];
  const start = startupLogger(logger);
  for (const line of banner) if (line !== '') start.info(line);

  drainOnSignals({
    target: gateway,
    release: () => Promise.allSettled([backend.close(), store.close()]),
    delayMs: config.drain.delayMs,
    timeoutMs: config.drain.timeoutMs,
    logger,
  });
}

if (require.main === module) {
  main().catch((err: unknown) => {
    logStartFailure('start', (err as Error).message);
    console.error(`start: ${(err as Error).message}`);
    process.exit(1);
  });
}

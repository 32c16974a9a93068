/**
 * `npm start`: the backend and the gateway together on the embedded store with an example config
 * (`--policy A|B`, default A, or `--config FILE`). Keeps the key pepper, the admin token and the dashboard's session
 * secret in the data folder so keys, the CLI and dashboard sessions keep working across restarts, and prints the URLs
 * and how to create a first key.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startBackend } from '../backend/server';
import { systemClock } from '../gateway/core/clock';
import { createLogger, logStartFailure, startupLogger } from '../gateway/core/logger';
import { createStore } from '../gateway/store';
import { repoRoot } from '../gateway/core/paths';
import { compileConfig, loadConfigFile } from '../runtime/config';
import { drainOnSignals } from '../runtime/drain';
import { developmentNotice } from '../runtime/main';
import { keptSecret } from '../runtime/secret-file';
import { createGateway } from '../runtime/server';

/** `--policy A|B` or `--config FILE`. */
function configFile(root: string, argv: readonly string[]): string {
  const i = argv.indexOf('--config');
  if (i >= 0 && argv[i + 1]) return path.resolve(argv[i + 1] as string);
  const p = argv.indexOf('--policy');
  const policy = p >= 0 ? argv[p + 1] : 'A';
  if (policy !== 'A' && policy !== 'B') throw new Error('--policy must be A or B');
  return path.join(root, 'config', `example-${policy.toLowerCase()}.yaml`);
}

async function main(): Promise<void> {
  const root = repoRoot();
  const dataDir = process.env['GEOGATE_DATA_DIR'] ?? path.join(root, 'data');
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
  const file = configFile(root, process.argv.slice(2));
  const config = compileConfig(loadConfigFile(file, env), file);
  const adminToken = config.admin.token ?? (process.env['GEOGATE_ADMIN_TOKEN'] || keptSecret(tokenFile));
  const logger = createLogger({ level: config.logLevel, format: config.logFormat }, 'gateway');
  const store = await createStore(
    { ...config.store, reservationTimeoutMs: config.reservationTimeoutMs },
    { clock: systemClock, logger },
  );
  const gateway = createGateway({ config, store, clock: systemClock, logger, adminToken });
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

main().catch((err: unknown) => {
  logStartFailure('start', (err as Error).message);
  console.error(`start: ${(err as Error).message}`);
  process.exit(1);
});

/**
 * `node dist/backend/main.js [--port N] [--host H]`: runs the backend alone. Host and port also come from
 * BACKEND_HOST / BACKEND_PORT (flags win). Prints one line "listening on http://HOST:PORT" when ready.
 */
import { readGeodataMeta } from './geodata/files';
import { isUpToDate, sourceVersions } from './geodata/sources';
import { defaultGeodataDir, ownVersion } from './paths';
import { DEFAULT_BACKEND_PORT, startBackend } from './server';

/** Parsed command line. */
export interface MainOptions {
  host: string;
  port: number;
}

function parsePort(text: string, from: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new Error(`${from}: port must be 0..65535, got "${text}"`);
  return Number(text);
}

/** Reads flags and environment; throws naming the bad flag. */
export function parseMainOptions(argv: readonly string[], env: NodeJS.ProcessEnv): MainOptions {
  let host = env.BACKEND_HOST || '127.0.0.1';
  let port = env.BACKEND_PORT ? parsePort(env.BACKEND_PORT, 'BACKEND_PORT') : DEFAULT_BACKEND_PORT;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] as string;
    const value = argv[i + 1];
    if ((flag === '--port' || flag === '--host') && value === undefined)
      throw new Error(`${flag} needs a value`);
    if (flag === '--port') port = parsePort(value as string, '--port');
    else if (flag === '--host') host = value as string;
    else throw new Error(`unknown argument: ${flag} (use --port N, --host H)`);
    i++;
  }
  return { host, port };
}

async function main(): Promise<void> {
  let opts: MainOptions;
  try {
    opts = parseMainOptions(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`backend: ${(err as Error).message}`);
    process.exit(2);
  }
  const backend = await startBackend(opts);
  if (!isUpToDate(readGeodataMeta(defaultGeodataDir()), sourceVersions())) {
    console.error(
      'backend: warning: build/geodata was built from other package versions; run `npm run build`',
    );
  }
  const stop = (): void => {
    backend.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
    setTimeout(() => process.exit(0), 2000).unref();
  };
  // Handlers before the ready line: a supervisor may signal as soon as it reads it.
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.log(`backend: listening on ${backend.url} (data loaded in ${Math.round(backend.data.loadMs)} ms)`);
}

/** `--help` text of the backend process. */
const USAGE = [
  'usage: node dist/backend/main.js [--port N] [--host H]   (or BACKEND_PORT, BACKEND_HOST)',
  '  --version   print the version and exit',
  '  --help      print this text and exit',
].join('\n');

if (require.main === module) {
  const argv = process.argv.slice(2);
  if (argv.includes('--version') || argv.includes('-V')) {
    console.log(`geogate-backend ${ownVersion()} (node ${process.version})`);
    process.exit(0);
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  main().catch((err: unknown) => {
    console.error(`backend: failed to start: ${(err as Error).message}`);
    process.exit(1);
  });
}

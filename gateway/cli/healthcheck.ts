/**
 * `node dist/gateway/cli/healthcheck.js`: the container's health check. Reads the same config as the gateway (so it
 * follows the configured admin port and address) and exits 0 when the admin listener's /healthz answers 200, else 1.
 * The config file: $GEOGATE_CONFIG, else the `--config` of the container's main process, else config/docker.yaml.
 */
import { readFileSync } from 'node:fs';
import { loadConfigFile } from '../config/load';

/** The config file the gateway runs with. */
export function configPath(env: NodeJS.ProcessEnv, mainCmdline: string | null): string {
  if (env.GEOGATE_CONFIG) return env.GEOGATE_CONFIG;
  const argv = mainCmdline?.split('\0') ?? [];
  const i = argv.indexOf('--config');
  if (i >= 0 && argv[i + 1]) return argv[i + 1] as string;
  const inline = argv.find((a) => a.startsWith('--config='));
  return inline ? inline.slice('--config='.length) : 'config/docker.yaml';
}

/** The admin listener's /healthz URL; a wildcard listen address is reached on loopback. */
export function healthUrl(listen: { host: string; port: number }): string {
  const host =
    listen.host === '0.0.0.0' || listen.host === ''
      ? '127.0.0.1'
      : listen.host === '::'
        ? '[::1]'
        : listen.host;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${shown}:${listen.port}/healthz`;
}

/** Whether the gateway configured in `file` answers its admin /healthz within `timeoutMs`. */
export async function healthy(file: string, env: NodeJS.ProcessEnv, timeoutMs = 2500): Promise<boolean> {
  const config = loadConfigFile(file, env);
  try {
    const res = await fetch(healthUrl(config.admin.listen), { signal: AbortSignal.timeout(timeoutMs) });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** PID 1's command line inside a container (null elsewhere or when unreadable). */
function mainCmdline(): string | null {
  try {
    return readFileSync('/proc/1/cmdline', 'utf8');
  } catch {
    return null;
  }
}

if (require.main === module) {
  healthy(configPath(process.env, mainCmdline()), process.env).then(
    (ok) => process.exit(ok ? 0 : 1),
    (err: unknown) => {
      console.error(`healthcheck: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}

/**
 * The load generators and the reference proxy the gateway benchmark needs, from Debian: wrk, hey and nginx are installed
 * with apt-get when missing (the bench runs as root on the project's machine; elsewhere install them yourself).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const WRK = '/usr/bin/wrk';
export const NGINX = '/usr/sbin/nginx';
/** Debian's hey: the fixed-rate load of the bench's steadier CPU figure (BENCH_RATE). */
export const HEY = '/usr/bin/hey';

function aptGet(args: string[]): boolean {
  const r = spawnSync('apt-get', args, {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    timeout: 300_000,
  });
  return r.status === 0;
}

/** Install a Debian package when `binary` is missing (apt-get update once if the first install fails). */
export function ensureDebian(binary: string, pkg: string): void {
  if (existsSync(binary)) return;
  console.log(`bench: ${binary} is missing, installing Debian's ${pkg} (apt-get)`);
  const install = ['install', '-y', '--no-install-recommends', pkg];
  if (!aptGet(install) && !(aptGet(['update']) && aptGet(install))) {
    throw new Error(`could not install ${pkg} with apt-get (install it, then run the bench again)`);
  }
  if (!existsSync(binary)) throw new Error(`${pkg} is installed but ${binary} is missing`);
}

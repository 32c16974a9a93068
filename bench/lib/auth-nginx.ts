/**
 * nginx with `auth_request` asking geogate's forward-auth listener (D38) before proxying to the backend: the
 * configuration of docs/forward-auth.md (bench/run/forward-auth-nginx.ts), for `npm run bench:forward-auth` and the
 * forward-auth scenario of `npm run bench:gateway`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { forwardAuthNginxConf } from '../run/forward-auth-nginx';
import { freePort, track } from './services';
import { NGINX } from './tools';

/** Resolve once something accepts connections on the port. */
export function waitPort(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listens on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** A running auth nginx: its URL, its master process, and `stop` (graceful, then its folder removed). */
export interface AuthNginx {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Start nginx with `auth_request` to geogate at `admit`, proxying `/v1/…` to `backendUrl`'s `/…`. */
export async function startAuthNginx(admit: string, backendUrl: string): Promise<AuthNginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-bench-fa-nginx-'));
  mkdirSync(path.join(dir, 'tmp'));
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  writeFileSync(conf, forwardAuthNginxConf(dir, port, admit, backendUrl));
  const child = spawn(NGINX, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
  track(child);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((res) => child.once('exit', res));
      child.kill('SIGQUIT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  await waitPort(port);
  return { url: `http://127.0.0.1:${port}`, child, stop };
}

/**
 * The reference for issue 12: Debian's nginx as a plain reverse proxy to the same backend, one worker, keep-alive
 * upstream connections, no access log. `/v1/…` is proxied to the backend's `/…` (the same call the gateway makes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, onCleanup, track } from './services';
import { ensureDebian, NGINX } from './tools';

/** A running nginx. */
export interface BenchNginx {
  url: string;
  child: ChildProcess;
}

function config(dir: string, port: number, backend: URL): string {
  const tmp = path.join(dir, 'tmp');
  const pass = 'proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $proxy_host;';
  return `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${tmp}; proxy_temp_path ${tmp}; fastcgi_temp_path ${tmp}; uwsgi_temp_path ${tmp}; scgi_temp_path ${tmp};
  upstream backend { server ${backend.hostname}:${backend.port}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location /v1/ { proxy_pass http://backend/; ${pass} }
    location / { proxy_pass http://backend; ${pass} }
  }
}
`;
}

function waitPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      if (child.exitCode !== null) return reject(new Error(`nginx exited ${child.exitCode}`));
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error('nginx did not start'));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Start nginx (installed with apt-get when missing) in front of `backendUrl`; stopped by cleanupAll. */
export async function startNginx(backendUrl: string): Promise<BenchNginx> {
  ensureDebian(NGINX, 'nginx');
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-bench-nginx-'));
  mkdirSync(path.join(dir, 'tmp'));
  const port = await freePort();
  writeFileSync(path.join(dir, 'nginx.conf'), config(dir, port, new URL(backendUrl)));
  const child = spawn(
    NGINX,
    ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')],
    {
      stdio: 'ignore',
    },
  );
  track(child);
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((res) => child.once('exit', res));
      child.kill('SIGQUIT');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  });
  await waitPort(port, child);
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * Real edge proxies in front of a backend with geogate's forward auth deciding (D38): Debian's nginx
 * (`auth_request`) and Debian's Caddy (`forward_auth`), installed by scripts/install-tools.sh. Their configurations
 * are the ones docs/forward-auth.md documents (with the addresses filled in); each runs as a private process on an
 * ephemeral port, with its files in a temp folder, and is stopped after the tests.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  forwardAuthNginxConf,
  GEOGATE_LOCATION_BLOCK,
  GEOGATE_SERVER_BLOCK,
} from '../../../bench/run/forward-auth-nginx';

export { GEOGATE_LOCATION_BLOCK, GEOGATE_SERVER_BLOCK };

export const NGINX = '/usr/sbin/nginx';
export const CADDY = '/usr/bin/caddy';

/** A running proxy. */
export interface Proxy {
  url: string;
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/** Installs nginx and Caddy with the project's script when either is missing. */
export function ensureProxies(): void {
  if (existsSync(NGINX) && existsSync(CADDY)) return;
  const r = spawnSync('bash', [join(__dirname, '../../../scripts/install-tools.sh')], {
    stdio: 'inherit',
    timeout: 600_000,
  });
  if (r.status !== 0 || !existsSync(NGINX) || !existsSync(CADDY))
    throw new Error('nginx or caddy is missing and scripts/install-tools.sh could not install them');
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** host:port of a URL. */
const hostPort = (url: string): string => new URL(url).host;

/**
 * nginx in front of `backend` (its `/v1/…` proxied to the backend's `/…`), asking geogate at `admit` (the forward-auth
 * listener) about each request: the configuration of docs/forward-auth.md. Requests for the host `fail.test` go to
 * `failing` instead, and those for `down.test` to a port nothing listens on, for the release route.
 */
export function nginxConfig(
  dir: string,
  port: number,
  admit: string,
  backend: string,
  failing: string,
): string {
  const server = (name: string, upstream: string) => `  server {
    listen 127.0.0.1:${port};
    server_name ${name};
${GEOGATE_SERVER_BLOCK}
    location /v1/ {
${GEOGATE_LOCATION_BLOCK}
      proxy_pass http://${upstream}/;
    }
  }
`;
  // `down.test`: a backend nothing listens for (port 1), so nginx answers its own 502.
  const extra = `  upstream failing { server ${hostPort(failing)}; }
  upstream down { server 127.0.0.1:1; }
${server('fail.test', 'failing')}${server('down.test', 'down')}`;
  return forwardAuthNginxConf(dir, port, admit, backend, extra);
}

/**
 * Caddy in front of `backend` (`/v1/…` to the backend's `/…`) with forward_auth asking geogate at `admit`: the
 * Caddyfile of docs/forward-auth.md. Requests for the host `fail.test` go to `failing`, for the release route.
 */
export function caddyfile(port: number, admit: string, backend: string, failing: string): string {
  const site = (address: string, upstream: string) => `${address} {
  bind 127.0.0.1
  route /v1/* {
    forward_auth ${hostPort(admit)} {
      uri /v1/admit
      copy_headers RateLimit RateLimit-Policy X-Quota-Limit X-Quota-Used X-Quota-Reset X-Geogate-Admission
    }
${CADDY_QUOTA_HEADERS}
    uri strip_prefix /v1
    request_header -X-API-Key
    request_header -Authorization
    reverse_proxy ${hostPort(upstream)} {
      header_up -X-Geogate-Admission
      @failed status 5xx
      handle_response @failed {
        rewrite * /v1/release
        method POST
        reverse_proxy ${hostPort(admit)} {
          header_up X-Geogate-Upstream-Status {http.reverse_proxy.status_code}
        }
      }
    }
  }
}`;
  return `{
  admin off
  auto_https off
}
${site(`http://fail.test:${port}`, failing)}
${site(`http://:${port}`, backend)}
`;
}

/**
 * Caddy's copy of the quota headers to the client's answer: forward_auth copies them onto the request only. Caddy
 * 2.6 copies a header the answer did not have as its unreplaced placeholder text ("{http.reverse_proxy.header.…}"),
 * so a header is copied to the answer only when its value does not start with "{".
 */
export const CADDY_QUOTA_HEADERS = [
  'RateLimit',
  'RateLimit-Policy',
  'X-Quota-Limit',
  'X-Quota-Used',
  'X-Quota-Reset',
]
  .map((h) => {
    const m = `@has${h.replace(/-/g, '')}`;
    return `    ${m} header_regexp ${h} ^[^{]\n    header ${m} ${h} {http.request.header.${h}}`;
  })
  .join('\n');

/** Resolve when something accepts connections on the port (or reject when the process died or 10 s passed). */
function waitPort(port: number, child: ChildProcess, out: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      if (child.exitCode !== null) return reject(new Error(`proxy exited ${child.exitCode}:\n${out()}`));
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`proxy did not start:\n${out()}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

/** Start a proxy process and wait for its port; `stop` ends it and removes its folder. */
async function run(cmd: string, args: string[], port: number, dir: string): Promise<Proxy> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: dir } });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((res) => child.once('exit', res));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitPort(port, child, () => out);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, port, output: () => out, stop };
}

/** nginx with the documented configuration. */
export async function startNginx(admit: string, backend: string, failing: string): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), 'gg-fa-nginx-'));
  mkdirSync(join(dir, 'tmp'));
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxConfig(dir, port, admit, backend, failing));
  return run(NGINX, ['-p', dir, '-c', conf, '-e', join(dir, 'error.log')], port, dir);
}

/** Caddy with the documented Caddyfile. */
export async function startCaddy(admit: string, backend: string, failing: string): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), 'gg-fa-caddy-'));
  const port = await freePort();
  const file = join(dir, 'Caddyfile');
  writeFileSync(file, caddyfile(port, admit, backend, failing));
  return run(CADDY, ['run', '--config', file, '--adapter', 'caddyfile'], port, dir);
}

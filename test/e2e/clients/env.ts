/**
 * Shared e2e setup for the real non-JavaScript clients (issue 16 item 6): one real backend process, two in-process
 * gateways in front of it (rule set B: a fresh key has one free request per day, then 429 quota_exceeded; rule set
 * A: one free request, then 402 no_credits), each drop-in adapter on its own listener that requires a key, and the
 * keyless providers (Nominatim, Photon) also on an anonymous listener. A small forward proxy per gateway stands in
 * for DNS for the clients that cannot be given a base URL: it maps the provider's host name to the drop-in listener
 * and forwards the request line unchanged. Scripts are run with the Debian interpreters (/usr/bin/python3,
 * /usr/bin/perl) so the Debian-packaged clients are the ones used.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DAY_MS } from '../../../gateway/core/clock';
import { generateKey } from '../../../gateway/core/keys';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';
import { startGatewayHarness, type Harness } from '../../helpers/gateway-harness';

export { PARIS } from '../adapters/harness';

/** The two rule sets a client meets: B answers an used allowance, A a missing credit. */
export type Gateway = 'A' | 'B';

/** Provider host names the forward proxy maps to a drop-in adapter (clients without a base-URL option). */
export const PROXIED_HOSTS: Readonly<Record<string, string>> = {
  'dev.virtualearth.net': 'bing',
  'revgeocode.search.hereapi.com': 'here',
  'api.geocod.io': 'geocodio',
  'maps.google.com': 'google',
};

/** Adapters that also get an anonymous listener (their providers have no keys). */
const KEYLESS = ['nominatim', 'photon'];

/** A running client environment. */
export interface ClientEnv {
  backend: BackendProcess;
  gateways: Record<Gateway, Harness>;
  /** Base URL of `adapter` on gateway `gw`; `anonymous` picks the keyless listener. */
  url(gw: Gateway, adapter: string, anonymous?: boolean): string;
  /** The forward proxy (http://127.0.0.1:port) of gateway `gw`. */
  proxy(gw: Gateway): string;
  /** A fresh key on a fresh account without credit. */
  freshKey(gw: Gateway): Promise<string>;
  /** A well-formed key no store knows. */
  unknownKey: string;
  /** Moves both gateways' clocks to the next UTC day (every daily allowance starts again). */
  nextDay(): void;
  close(): Promise<void>;
}

function hostsFor(adapters: readonly string[]): object[] {
  const hosts: object[] = [{ name: 'localhost', adapter: 'native' }];
  for (const a of adapters) {
    hosts.push({ name: `${a}.test`, port: 0, adapter: a, anonymous: false });
    if (KEYLESS.includes(a)) hosts.push({ name: `${a}-anon.test`, port: 0, adapter: a, anonymous: true });
  }
  return hosts;
}

/** A forward proxy: absolute-form request lines for PROXIED_HOSTS go to the adapter's listener, path unchanged. */
async function startProxy(target: (adapter: string) => string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://invalid');
    const adapter = PROXIED_HOSTS[url.hostname];
    if (!adapter) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: no drop-in host for ${url.hostname}`);
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const upstream = http.request(`${target(adapter)}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => res.writeHead(502).end(`proxy: ${err.message}`));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Starts the backend, both gateways and both proxies for `adapters`. */
export async function startClientEnv(adapters: readonly string[]): Promise<ClientEnv> {
  const backend = await startBackendProcess();
  const gateways = {} as Record<Gateway, Harness>;
  const proxies = {} as Record<Gateway, http.Server>;
  const close = async (): Promise<void> => {
    for (const p of Object.values(proxies)) await new Promise((r) => p.close(r));
    for (const g of Object.values(gateways)) await g.close();
    await backend.stop();
  };
  const url = (gw: Gateway, adapter: string, anonymous = false): string => {
    const u = gateways[gw].hostUrls[`${adapter}${anonymous ? '-anon' : ''}.test`];
    if (!u) throw new Error(`no listener for ${adapter} on gateway ${gw}`);
    return u;
  };
  try {
    for (const gw of ['A', 'B'] as const) {
      gateways[gw] = await startGatewayHarness({
        policy: gw,
        backendUrl: backend.url,
        config: { hosts: hostsFor(adapters), limits: { freePerDay: 1 }, trustProxy: [] },
      });
      proxies[gw] = await startProxy((adapter) => url(gw, adapter));
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    backend,
    gateways,
    url,
    proxy: (gw) => `http://127.0.0.1:${(proxies[gw].address() as AddressInfo).port}`,
    async freshKey(gw) {
      const account = await gateways[gw].account();
      return (await gateways[gw].key(account.id)).key;
    },
    unknownKey: generateKey(),
    nextDay() {
      for (const g of Object.values(gateways)) g.clock.advance(DAY_MS);
    },
    close,
  };
}

/** The directory of the client scripts. */
export const SCRIPTS = join(__dirname, 'scripts');

/** The Debian interpreters the clients are installed for (a pyenv or perlbrew first in PATH would not see them). */
export const PYTHON = '/usr/bin/python3';
export const PERL = '/usr/bin/perl';

/** What a client script printed: its one JSON line, parsed. */
export type ScriptOutput = Record<string, unknown>;

/**
 * Runs a client script and parses its one JSON line; rejects (failing the test, never skipping it) when the
 * interpreter or the client is missing or the script prints anything else. Proxy variables of the test's own
 * environment are removed, so only the proxy a test passes is used.
 */
export function runScript(
  interpreter: string,
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ScriptOutput> {
  if (!existsSync(interpreter)) {
    return Promise.reject(new Error(`${interpreter} is missing: run scripts/install-clients.sh`));
  }
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/_proxy$/i.test(k)) clean[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn(interpreter, [join(SCRIPTS, script), ...args], {
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out) as ScriptOutput);
      } catch {
        reject(
          new Error(`${script} exited ${String(code)} without a JSON line; stderr: ${err.slice(-2000)}`),
        );
      }
    });
  });
}

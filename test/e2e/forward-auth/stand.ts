/**
 * One forward-auth stand (D38): the real backend, a failing backend (503 to everything, for the release route), a
 * real gateway process with a forward-auth listener (rule set A or B, two free requests a day, price one unit,
 * trusted proxy 127.0.0.1) and a real edge proxy in front. Clients connect from their own loopback addresses
 * (127.0.0.x), so each is a distinct client address behind the proxy.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startGatewayProc, type RunningProcess } from '../../helpers/gateway-processes';
import { ensureProxies, startCaddy, startNginx, type Proxy } from './proxies';

export const ADMIN_TOKEN = 'forward-auth-admin-token-0123';
export const HOST = 'geo.test';
/** The host the proxies send to the failing backend (a second native host of the same gateway). */
export const FAIL_HOST = 'fail.test';
/** The host nginx sends to a port nothing listens on (its own 502). */
export const DOWN_HOST = 'down.test';
export const WINDOW_MS = 2000;

/** An answer as the client saw it. */
export interface Seen {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: Record<string, unknown> | null;
}

/** One request from `from` (a loopback address) to `base`. */
export function ask(
  base: string,
  path: string,
  o: { from?: string; method?: string; host?: string; headers?: Record<string, string> } = {},
): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path,
        method: o.method ?? 'GET',
        localAddress: o.from ?? '127.0.0.1',
        headers: { host: o.host ?? HOST, ...o.headers },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown> | null = null;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A stand's parts. */
export interface Stand {
  policy: 'A' | 'B';
  proxy: Proxy;
  gateway: RunningProcess;
  adminUrl: string;
  admitUrl: string;
  /** An account with a key and `credit` units of money (A: 0.0001 EUR each, B: credits); its id and key. */
  customer(credit: number): Promise<{ accountId: string; key: string }>;
  /** The account's balance as the admin API shows it. */
  balance(accountId: string): Promise<string | number>;
  stop(): Promise<void>;
}

/** The failing backend: 503 to every request. */
function startFailing(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'text/plain' }).end('down\n');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    }),
  );
}

const admin = async (adminUrl: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
  const res = await fetch(new URL(path, adminUrl), {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', ...extra },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`admin ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
};

/** Start a stand for rule set `policy` behind `proxy`, in folder `dir`, over the running backend at `backendUrl`. */
export async function startStand(
  policy: 'A' | 'B',
  proxyKind: 'nginx' | 'caddy',
  dir: string,
  backendUrl: string,
): Promise<Stand> {
  ensureProxies();
  const failing = await startFailing();
  const file = join(dir, `gateway-${policy}-${proxyKind}.yaml`);
  writeFileSync(
    file,
    [
      `policy: ${policy}`,
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 } }',
      `backend: { url: "${backendUrl}" }`,
      `store: { kind: embedded, path: "${join(dir, `g-${policy}-${proxyKind}.db`)}" }`,
      'keyPepper: "${PEPPER}"',
      `hosts: [{ name: ${HOST}, adapter: native }, { name: ${FAIL_HOST}, adapter: native }, { name: ${DOWN_HOST}, adapter: native }]`,
      'limits: { freePerDay: 2, pricePerRequest: 1 }',
      'trustProxy: ["127.0.0.1/32"]',
      'log: { level: warn }',
      'drain: { delayMs: 0 }',
      'forwardAuth:',
      '  listen: { host: 127.0.0.1, port: 0 }',
      `  request: ${proxyKind === 'nginx' ? 'x-original' : 'x-forwarded'}`,
      `  releaseWindowMs: ${WINDOW_MS}`,
    ].join('\n'),
  );
  // main, the three hosts, admin, forward auth
  const gateway = await startGatewayProc(file, 6, {
    PEPPER: 'p'.repeat(24),
    GEOGATE_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  const adminUrl = gateway.urls[4] as string;
  const admitUrl = /forward auth on (http:\/\/\S+)/.exec(gateway.output())?.[1] as string;
  let proxy: Proxy;
  try {
    proxy = await (proxyKind === 'nginx' ? startNginx : startCaddy)(admitUrl, backendUrl, failing.url);
  } catch (err) {
    await gateway.stop();
    await failing.close();
    throw err;
  }
  let n = 0;
  return {
    policy,
    proxy,
    gateway,
    adminUrl,
    admitUrl,
    async customer(credit) {
      n++;
      const email = `c${n}-${policy}@example.com`;
      const account = await admin(
        adminUrl,
        '/admin/accounts',
        policy === 'A' ? { email, name: `Customer ${n}`, password: 'a long enough password' } : { email },
      );
      const accountId = account['id'] as string;
      const key = (await admin(adminUrl, `/admin/accounts/${accountId}/keys`, { label: 'edge' }))[
        'key'
      ] as string;
      if (credit > 0) {
        const amount = policy === 'A' ? (credit / 10_000).toFixed(4) : credit;
        await admin(
          adminUrl,
          `/admin/accounts/${accountId}/credit`,
          { amount },
          { 'idempotency-key': `top-${n}` },
        );
      }
      return { accountId, key };
    },
    async balance(accountId) {
      return (await admin(adminUrl, `/admin/accounts/${accountId}`))['balance'] as string | number;
    },
    async stop() {
      await proxy.stop();
      await gateway.stop();
      await failing.close();
    },
  };
}

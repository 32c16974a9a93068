/**
 * A gateway under test: real embedded store in a temp folder, real backend (URL given), in-process gateway with a
 * ManualClock, and helpers to create accounts and keys through the Store's management operations.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { compileConfig, validateConfig, type AppConfig as CompiledConfig } from '../../runtime/config';
import { ManualClock } from '../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../gateway/core/keys';
import { createGateway, type Gateway, type GatewayUrls } from '../../runtime/server';
import { createStore } from '../../gateway/store';
import type { Account, ApiKey, KeyKind } from '../../gateway/store/types';
import type { Store } from '../../gateway/store/ports';

/** 2026-11-22 12:00:00 UTC: a fixed start for every test. */
export const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
export const PEPPER = 'test-pepper-0123456789abcdef';

export interface HarnessOptions {
  policy: 'A' | 'B';
  backendUrl: string;
  /** Extra or overriding config members (limits, trustProxy, hosts, credentials, backend.timeoutMs...). */
  config?: Record<string, unknown>;
  /** Reuse a store file (restart tests). */
  dir?: string;
  /** Collect the gateway's log lines here (level info) instead of discarding them. */
  logs?: string[];
  /** Run the store's crash sweeper with the config's reservation timeout, as the launcher does (runtime/main.ts). */
  sweeper?: boolean;
}

export interface Harness extends GatewayUrls {
  config: CompiledConfig;
  store: Store;
  clock: ManualClock;
  gateway: Gateway;
  dir: string;
  account(opts?: { balance?: number; unlimitedUntil?: number | null }): Promise<Account>;
  key(
    accountId: string,
    opts?: { kind?: KeyKind; packageUntil?: number | null },
  ): Promise<{ key: string; record: ApiKey }>;
  close(opts?: { keepDir?: boolean }): Promise<void>;
}

let seq = 0;

/** Start a gateway on ephemeral ports in front of `backendUrl`. */
export async function startGatewayHarness(opts: HarnessOptions): Promise<Harness> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'geogate-gw-'));
  const doc = {
    policy: opts.policy,
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
    backend: { url: opts.backendUrl, timeoutMs: 5000 },
    store: { kind: 'embedded', path: join(dir, 'geogate.db') },
    keyPepper: PEPPER,
    hosts: [{ name: 'localhost', adapter: 'native' }],
    ...opts.config,
  };
  const config = compileConfig(validateConfig(doc, 'test.yaml', {}), 'test.yaml');
  const clock = new ManualClock(T0);
  const logs = opts.logs;
  const logger = logs
    ? pino({ level: 'info' }, { write: (line: string) => void logs.push(line) })
    : pino({ level: 'silent' });
  const embedded = config.store as { kind: 'embedded'; path: string };
  const store = await createStore(
    opts.sweeper === true ? { ...embedded, reservationTimeoutMs: config.reservationTimeoutMs } : embedded,
    { clock },
  );
  const gateway = createGateway({ config, store, clock, logger });
  const urls = await gateway.listen();
  return {
    ...urls,
    config,
    store,
    clock,
    gateway,
    dir,
    async account(o = {}) {
      let acc = await store.createAccount(
        { email: `user${++seq}-${Date.now()}@example.com`, name: 'Test' },
        clock.now(),
      );
      if (o.balance) await store.credit(acc.id, o.balance, null, clock.now());
      if (o.unlimitedUntil !== undefined) acc = await store.setUnlimitedUntil(acc.id, o.unlimitedUntil);
      return (await store.getAccount(acc.id)) as Account;
    },
    async key(accountId, o = {}) {
      const key = generateKey();
      const record = await store.createKey(
        {
          accountId,
          hash: hashKey(key, PEPPER),
          prefix: keyPrefix(key),
          kind: o.kind ?? 'payg',
          packageUntil: o.packageUntil ?? null,
        },
        clock.now(),
      );
      return { key, record };
    },
    async close(c = {}) {
      await gateway.close();
      await store.close();
      if (!c.keepDir && !opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A keep-alive agent shared by test clients. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** One HTTP request (GET unless told) with raw control of headers, e.g. Host and X-Forwarded-For. */
export function call(
  base: string,
  path: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const req = http.request(u, { method: o.method ?? 'GET', headers: o.headers ?? {}, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** Run `n` requests with at most `concurrency` in flight; returns the statuses in order. */
export async function burst(
  n: number,
  concurrency: number,
  one: (i: number) => Promise<Answer>,
): Promise<Answer[]> {
  const out: Answer[] = new Array(n);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < n) {
      const i = next++;
      out[i] = await one(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return out;
}

/** Count statuses. */
export function tally(answers: Answer[]): Record<number, number> {
  const t: Record<number, number> = {};
  for (const a of answers) t[a.status] = (t[a.status] ?? 0) + 1;
  return t;
}

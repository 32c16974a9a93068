/**
 * A real gateway (embedded store, real listeners, ManualClock) whose backend is an injected forwarder
 * (`createGateway({ forward })`): each test decides what "the backend" answers, with no backend process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { BackendCall } from '../../../adapters/types';
import type { ReverseRecord } from '../../../backend/records';
import { compileConfig, type CompiledConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';
import { ManualClock } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import type { BackendOutcome, Forwarder } from '../../../gateway/http/backend';
import { createGateway, type GatewayDeps, type GatewayUrls } from '../../../gateway/server';
import { createStore } from '../../../gateway/store';
import type { Account } from '../../../gateway/store/types';
import type { Store } from '../../../gateway/store/ports';
import { PEPPER, T0 } from '../../helpers/gateway-harness';

/** What the injected backend does with one call (`res` lets a test play a client that leaves). */
export type Backend = (call: BackendCall, res: ServerResponse) => BackendOutcome;

export interface Injected extends GatewayUrls {
  config: CompiledConfig;
  store: Store;
  clock: ManualClock;
  /** Every backend call the gateway made. */
  calls: BackendCall[];
  /** Replace what the backend answers. */
  backend: Backend;
  /** Resolves with the next per-request log line (written after the request is settled). */
  nextLogLine(): Promise<Record<string, unknown>>;
  logs: string[];
  account(balance?: number): Promise<Account>;
  key(accountId: string): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

/** A backend record for any reverse call (the real backend's shape, backend/records.ts). */
export function reverseRecord(call: BackendCall): ReverseRecord {
  const q = call.kind === 'reverse' ? { lat: call.lat, lon: call.lon } : { lat: 0, lon: 0 };
  return {
    query: q,
    countryCode: 'FR',
    country: 'France',
    region: 'Île-de-France',
    regionCode: '11',
    county: 'Paris',
    locality: 'Paris',
    postcode: null,
    distanceKm: 1.5,
    displayName: 'Paris, Île-de-France, France',
    lat: 48.85,
    lon: 2.35,
    timezone: 'Europe/Paris',
    attribution: 'test data',
  };
}

/** An answer outcome with a JSON (or raw text) body. */
export function answer(status: number, body: unknown): BackendOutcome {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { kind: 'answer', status, body: Buffer.from(text, 'utf8') };
}

/** Start a gateway whose backend is `backend` (default: a 200 reverse record for every call). */
export async function startInjected(
  policy: 'A' | 'B',
  config: Record<string, unknown> = {},
  wrapStore: (store: Store) => Store = (store) => store,
  /** What the composition root may add (stage replacements, an admission wrapper, metrics), given the store. */
  compose: (
    store: Store,
    env: { clock: ManualClock; config: CompiledConfig },
  ) => Pick<GatewayDeps, 'admission' | 'stages' | 'metrics' | 'notifications'> = () => ({}),
): Promise<Injected> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-injected-'));
  const doc = {
    policy,
    listen: { host: '127.0.0.1', port: 0 },
    admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
    backend: { url: 'http://127.0.0.1:9', timeoutMs: 5000 }, // never dialled: the forwarder is injected
    store: { kind: 'embedded', path: join(dir, 'geogate.db') },
    keyPepper: PEPPER,
    hosts: [{ name: 'localhost', adapter: 'native' }],
    ...config,
  };
  const compiled = compileConfig(validateConfig(doc, 'test.yaml', {}), 'test.yaml');
  const clock = new ManualClock(T0);
  const logs: string[] = [];
  const waiting: ((line: Record<string, unknown>) => void)[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        logs.push(line);
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed['msg'] === 'request') waiting.shift()?.(parsed);
      },
    },
  );
  const store = await createStore(compiled.store as { kind: 'embedded'; path: string }, { clock });
  const calls: BackendCall[] = [];
  const self = { backend: ((c) => answer(200, reverseRecord(c))) as Backend };
  const forward: Forwarder = Object.assign(
    async (_req: unknown, res: ServerResponse, c: BackendCall) => {
      calls.push(c);
      return self.backend(c, res);
    },
    { close: () => undefined },
  );
  const gateway = createGateway({
    config: compiled,
    store: wrapStore(store),
    clock,
    logger,
    forward,
    ...compose(store, { clock, config: compiled }),
  });
  const urls = await gateway.listen();
  let seq = 0;
  return {
    ...urls,
    config: compiled,
    store,
    clock,
    calls,
    logs,
    get backend() {
      return self.backend;
    },
    set backend(b: Backend) {
      self.backend = b;
    },
    nextLogLine: () => new Promise((resolve) => waiting.push(resolve)),
    async account(balance = 0) {
      const acc = await store.createAccount({ email: `p${++seq}-${Date.now()}@example.com` }, clock.now());
      if (balance > 0) await store.credit(acc.id, balance, null, clock.now());
      return (await store.getAccount(acc.id)) as Account;
    },
    async key(accountId) {
      const key = generateKey();
      const record = await store.createKey(
        { accountId, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg' },
        clock.now(),
      );
      return { key, id: record.id };
    },
    async close() {
      await gateway.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Issue 13 items 2 (PostgreSQL side): a stalled PostgreSQL (a proxy that stops moving bytes, connections left open)
 * is answered within 5 s: the store throws StoreUnavailableError (connect "timeout expired", "Query read timeout",
 * pool acquire timeout: each classified unavailable), the gateway answers 503 store_unavailable, or serves the
 * request uncounted under onStoreFailure: open. Before: one request hung 50 s, two got 500.
 */
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { compileConfig } from '../../gateway/config/compile';
import { validateConfig } from '../../gateway/config/load';
import { systemClock } from '../../gateway/core/clock';
import { createGateway, type Gateway } from '../../gateway/server';
import { isStoreUnavailable, StoreUnavailableError } from '../../gateway/store/faults';
import type { SharedStore } from '../../gateway/store/shared';
import { call } from '../helpers/gateway-harness';
import { startBackendProc, type RunningProcess } from '../helpers/gateway-processes';
import { describeShared, sharedEnv, type SharedEnv } from '../integration/shared/harness';
import { FreezeProxy } from './freeze-proxy';

jest.setTimeout(120_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const UNKNOWN_KEY = 'gk_' + 'Q'.repeat(43);
const IP = '/v1/ipv4?ip=8.8.8.8';

/** How long `p` takes to settle, and its rejection (null when it resolved). */
async function timed(p: Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const t = performance.now();
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  return { err, ms: performance.now() - t };
}

describeShared('faults: PostgreSQL stalls (a proxy that freezes)', () => {
  let env: SharedEnv;
  let backend: RunningProcess;
  const proxy = new FreezeProxy({ host: '127.0.0.1', port: 5432 });
  beforeAll(async () => {
    env = await sharedEnv(undefined, 'pgstall');
    await proxy.listen();
    backend = await startBackendProc();
  }, 60_000);
  afterAll(async () => {
    await proxy.close();
    await env?.cleanup();
    await backend?.stop();
  });
  afterEach(() => proxy.thaw());

  it('store calls fail with StoreUnavailableError within 5 s, pooled and new connections alike', async () => {
    const store = await env.open({ postgres: proxy.urlFor(env.db.url) });
    const acc = await store.createAccount({ email: 'stall@example.org' }, T0); // a pooled connection exists
    proxy.freeze();
    const results = await Promise.all([
      timed(store.getAccount(acc.id)),
      timed(store.findKeyByHash('h-stall-unknown')),
      timed(store.listKeys(acc.id)),
      ...Array.from({ length: 12 }, (_, i) => timed(store.getKey(`key_${i}`))), // more than the pool holds
    ]);
    if (process.env.GG_VERBOSE) console.log({ pgStallAnswerMs: results.map((r) => Math.round(r.ms)) });
    for (const r of results) {
      expect(r.err).toBeInstanceOf(StoreUnavailableError);
      expect(isStoreUnavailable(r.err)).toBe(true);
      expect(r.ms).toBeLessThan(5_000);
    }
    expect((await store.readiness()).postgres).toBe(false);
    proxy.thaw();
    expect((await store.getAccount(acc.id))?.id).toBe(acc.id);
  });

  async function gateway(
    onStoreFailure: 'closed' | 'open',
  ): Promise<{ g: Gateway; url: string; store: SharedStore }> {
    const doc = {
      policy: 'A',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
      backend: { url: backend.url },
      store: { kind: 'embedded', path: '/nonexistent/unused.db' },
      onStoreFailure,
      keyPepper: 'test-pepper-0123456789abcdef',
      hosts: [{ name: 'localhost', adapter: 'native' }],
    };
    const config = compileConfig(validateConfig(doc, 'test.yaml', {}), 'test.yaml');
    const store = await env.open({ postgres: proxy.urlFor(env.db.url) });
    const logger = pino({ level: 'silent' });
    const g = createGateway({ config, store, clock: systemClock, logger });
    const urls = await g.listen();
    return { g, url: urls.mainUrl, store };
  }

  it.each([
    ['closed', 503],
    ['open', 200],
  ] as const)(
    'onStoreFailure: %s → %s within 5 s for a key PostgreSQL must look up',
    async (mode, status) => {
      const { g, url } = await gateway(mode);
      try {
        proxy.freeze();
        const t = performance.now();
        const r = await call(url, IP, { headers: { 'x-api-key': UNKNOWN_KEY } });
        const ms = performance.now() - t;
        if (process.env.GG_VERBOSE)
          console.log({ mode, status: r.status, gatewayStallAnswerMs: Math.round(ms) });
        expect(r.status).toBe(status);
        if (status === 503) expect(r.json).toMatchObject({ code: 'store_unavailable' });
        expect(ms).toBeLessThan(5_000);
      } finally {
        proxy.thaw();
        await g.close();
      }
    },
  );
});

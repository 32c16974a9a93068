/** /readyz on the admin listener (issue 4): the store answers and the backend's /healthz answers within 1 s. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { compileConfig } from '../../../gateway/config/compile';
import { validateConfig } from '../../../gateway/config/load';
import { ManualClock } from '../../../gateway/core/clock';
import { createGateway } from '../../../gateway/server';
import { call, T0, type Harness } from '../../helpers/gateway-harness';
import { LOCAL_REDIS_URL } from '../../helpers/redis-server';
import { describeShared, sharedEnv, type SharedEnv } from '../shared/harness';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

let h: Harness | null = null;

/** A URL on which nothing listens (a port taken and released). */
async function closedPortUrl(): Promise<string> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** A backend that accepts connections but never answers. */
async function silentBackend(): Promise<{ url: string; close(): Promise<void> }> {
  const s = http.createServer(() => undefined);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        s.closeAllConnections();
        s.close(() => r());
      }),
  };
}

test('ready: 200 with the store and a live backend', async () => {
  h = await gw.start({ policy: 'A', backendUrl: backend.url });
  const r = await call(h.adminUrl, '/readyz');
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ status: 'ready', checks: { sqlite: true, backend: true } });
});

test('not ready: 503 naming backend when nothing listens at the backend URL', async () => {
  h = await gw.start({ policy: 'A', backendUrl: await closedPortUrl() });
  const r = await call(h.adminUrl, '/readyz');
  expect(r.status).toBe(503);
  expect(r.json).toEqual({ status: 'not_ready', checks: { sqlite: true, backend: false } });
});

test('not ready: 503 naming backend when the backend does not answer within 1 s', async () => {
  const silent = await silentBackend();
  try {
    h = await gw.start({ policy: 'A', backendUrl: silent.url });
    const r = await call(h.adminUrl, '/readyz');
    expect(r.status).toBe(503);
    expect(r.json.checks).toEqual({ sqlite: true, backend: false });
  } finally {
    await h?.close();
    h = null;
    await silent.close();
  }
});

test('not ready: 503 naming sqlite when the store is closed', async () => {
  h = await gw.start({ policy: 'A', backendUrl: backend.url });
  await h.store.close();
  const r = await call(h.adminUrl, '/readyz');
  expect(r.status).toBe(503);
  expect(r.json.checks).toEqual({ sqlite: false, backend: true });
});

describeShared('readiness with the shared store', () => {
  let env: SharedEnv;
  beforeAll(async () => {
    env = await sharedEnv(LOCAL_REDIS_URL, 'readyz');
  });
  afterAll(async () => env?.cleanup());

  test('the store reports its own checks (redis, postgres) next to backend', async () => {
    const store = await env.open();
    const doc = {
      policy: 'B',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
      backend: { url: backend.url },
      store: { kind: 'shared', postgres: env.db.url, redis: LOCAL_REDIS_URL, keyPrefix: env.prefix },
      keyPepper: 'test-pepper-0123456789abcdef',
      hosts: [{ name: 'localhost', adapter: 'native' }],
    };
    const config = compileConfig(validateConfig(doc, 'test.yaml', {}), 'test.yaml');
    const gateway = createGateway({
      config,
      store,
      clock: new ManualClock(T0),
      logger: pino({ level: 'silent' }),
    });
    const urls = await gateway.listen();
    try {
      const r = await call(urls.adminUrl, '/readyz');
      expect(r.status).toBe(200);
      expect(r.json.checks).toEqual({ redis: true, postgres: true, backend: true });
    } finally {
      await gateway.close();
    }
  });
});

/**
 * Rule set A without an `smtp:` section and without `development` (the minimal dashboard config of
 * docs/dashboard.md), through the real composition root (runtime/server.ts) and real sockets, no injected mailer:
 * no verification link could ever arrive, so the sign-up is verified at creation and can create a key at once.
 */
import type { Express } from 'express';
import { startGatewayHarness, type Harness } from '../../helpers/gateway-harness';
import { Client, PASSWORD } from './fixture';

jest.setTimeout(30_000);

const PUBLIC_URL = 'http://dash.test';
let gw: Harness;
beforeEach(async () => {
  gw = await startGatewayHarness({
    policy: 'A',
    backendUrl: 'http://127.0.0.1:9', // never called: only the dashboard is used
    config: {
      dashboard: {
        listen: { host: '127.0.0.1', port: 0 },
        publicUrl: PUBLIC_URL,
        sessionSecret: 'a-session-secret-of-at-least-32-characters',
      },
    },
  });
});
afterEach(() => gw.close());

test('a sign-up without SMTP is verified at creation and may create a key', async () => {
  if (!gw.dashboardUrl) throw new Error('no dashboard listener');
  // supertest speaks to the real listener when given its URL.
  const c = new Client(gw.dashboardUrl as unknown as Express, PUBLIC_URL);
  await c.get('/signup');
  const r = await c.form('/signup', { email: 'ada@example.com', name: 'Ada', password: PASSWORD });
  expect(r.status).toBe(303);
  const account = await gw.store.findAccountByEmail('ada@example.com');
  expect(account?.emailVerifiedAt).toEqual(expect.any(Number));
  await c.get('/keys');
  const key = await c.api('post', '/api/keys', { label: 'first' });
  expect(key.status).toBe(201);
});

/** Issue 6: the gateway serves the dashboard on its own listener when the config has a `dashboard:` section. */
import { call, type Harness } from '../../helpers/gateway-harness';
import { gatewayStarter } from '../gateway/fixture';

const DASHBOARD = {
  listen: { host: '127.0.0.1', port: 0 },
  publicUrl: 'http://127.0.0.1:8082',
  sessionSecret: 'a-session-secret-of-at-least-32-characters',
  payments: { provider: 'test' },
};
/** `name=value; ...` from Set-Cookie headers. */
const cookies = (set: string[] | undefined): string => (set ?? []).map((c) => c.split(';')[0]).join('; ');

// The dashboard pages need no backend: an unused URL is enough.
const BACKEND = 'http://127.0.0.1:9';

let h: Harness | null = null;
const start = gatewayStarter();

test('with a dashboard section: /signin is served as HTML on dashboardUrl, its own listener', async () => {
  h = await start({ policy: 'A', backendUrl: BACKEND, config: { dashboard: DASHBOARD } });
  expect(h.dashboardUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect([h.mainUrl, h.adminUrl]).not.toContain(h.dashboardUrl);
  const page = await call(h.dashboardUrl as string, '/signin');
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.text).toMatch(/<form[^>]*>/i);
  // The main listener is the geocoding API, not the dashboard.
  expect((await call(h.mainUrl, '/signin')).status).toBe(404);
});

test('the dashboard shares the gateway store: an account created through the admin API signs in there', async () => {
  h = await start({ policy: 'A', backendUrl: BACKEND, config: { dashboard: DASHBOARD } });
  const dash = h.dashboardUrl as string;
  const email = `wired-${Date.now()}@example.com`;
  const password = 'a long enough password';
  const created = await call(h.adminUrl, '/admin/accounts', {
    method: 'POST',
    headers: { authorization: 'Bearer admin-token-0123456789', 'content-type': 'application/json' },
    body: JSON.stringify({ email, name: 'Wired', password }),
  });
  expect(created.status).toBe(201);

  const form = await call(dash, '/signin');
  const pre = cookies(form.headers['set-cookie']);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] ?? '';
  expect(csrf).not.toBe('');
  const signin = await call(dash, '/signin', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: pre,
      origin: DASHBOARD.publicUrl,
    },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  expect(signin.status).toBe(303);
  const session = await call(dash, '/api/session', {
    headers: { cookie: cookies(signin.headers['set-cookie']), accept: 'application/json' },
  });
  expect(session.status).toBe(200);
  expect(session.json.account).toMatchObject({ id: created.json.id, email, name: 'Wired' });
});

test('without a dashboard section: dashboardUrl is null', async () => {
  h = await start({ policy: 'A', backendUrl: BACKEND });
  expect(h.dashboardUrl).toBeNull();
});

test('close() stops the dashboard listener too', async () => {
  h = await start({ policy: 'A', backendUrl: BACKEND, config: { dashboard: DASHBOARD } });
  const url = h.dashboardUrl as string;
  await h.close();
  h = null;
  await expect(call(url, '/signin')).rejects.toThrow(/ECONNREFUSED|socket hang up|ECONNRESET/);
});

/** Every dashboard route with an id segment answers 400 (never 500, never an error log) for an undecodable id. */
import pino from 'pino';
import { createDashboardApp } from '../../../dashboard/app';
import { Notifications } from '../../../gateway/notify';
import { notificationsConfigSchema } from '../../../gateway/notify/config';
import { routesOf, withEachParam } from '../../helpers/express-routes';
import { Client, signedUp, useDashboards } from './fixture';

jest.setTimeout(60_000);

const dash = useDashboards();
const BAD = ['%ZZ', '%E0%A4%A', '%ZZ.pdf'];

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  test('every route with an id segment answers 400 invalid_parameter for an undecodable id, with or without a session', async () => {
    // Every optional route group on: notifications (webhook endpoints) and payments.
    const config = notificationsConfigSchema.parse({});
    const h = await dash(set, { config: { notifications: config } });
    const notifications = new Notifications({
      ...{ store: h.store, rules: h.rules, clock: h.clock, config, mailer: h.mail },
      logger: pino({ level: 'debug' }, h.logs),
    });
    h.deps = { ...h.deps, notifications };
    h.app = createDashboardApp(h.deps);
    const cases = BAD.flatMap((bad) => withEachParam(routesOf(h.app), bad));
    const paths = new Set(cases.map((c) => c.path));
    for (const p of [
      '/receipts/%ZZ',
      '/receipts/%ZZ.pdf',
      '/notifications/webhooks/%ZZ/delete',
      '/api/keys/%ZZ',
    ])
      expect(paths.has(p)).toBe(true);
    expect(cases.length).toBeGreaterThan(20);
    const visitor = new Client(h.app);
    const customer = await signedUp(h, `ada-${set.toLowerCase()}@example.com`);
    for (const client of [visitor, customer]) {
      for (const { method, path } of cases) {
        const r =
          method === 'get'
            ? await client.get(path)
            : await client.api(method as 'post' | 'put' | 'patch' | 'delete', path, {});
        expect({ method, path, status: r.status }).toEqual({ method, path, status: 400 });
        expect(r.text).not.toMatch(/Something went wrong/);
      }
    }
    const api = await customer.api('get', '/api/keys/%ZZ');
    expect(api.body).toMatchObject({ code: 'invalid_parameter', field: 'id' });
    expect(h.logs.text).not.toContain('internal error');
  });
});

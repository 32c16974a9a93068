/**
 * The Notifications page (issue 15 item 2, D30): e-mail alerts and the low-balance threshold with field errors,
 * webhook endpoints (https only, private targets refused by default, a limit, the secret shown once and never
 * logged), "send test event" delivered and logged, a revocation from the dashboard told, and no page at all when
 * the config has no notifications section.
 */
import { createDashboardApp } from '../../../dashboard/app';
import { notificationsConfigSchema } from '../../../gateway/notify/config';
import { TEST_EVENT_LIMIT } from '../../../dashboard/routes/notifications';
import { Notifications } from '../../../gateway/notify';
import { BOTH, signedUp, useDashboards, type Harness } from './fixture';

const dash = useDashboards();

/** A harness whose app has notifications (private targets refused, 2 endpoints at most). */
async function withNotifications(set: 'A' | 'B'): Promise<{ h: Harness; n: Notifications }> {
  const config = notificationsConfigSchema.parse({ webhooks: { maxEndpoints: 2 } });
  const h = await dash(set, { config: { notifications: config } });
  const n = new Notifications({
    store: h.store,
    rules: h.rules,
    clock: h.clock,
    config,
    mailer: h.mail,
    logger: h.logs as never,
  });
  h.deps = { ...h.deps, notifications: n };
  h.app = createDashboardApp(h.deps);
  return { h, n };
}

describe.each(BOTH)('rule set %s', (set) => {
  test('the page is linked in the navigation and saves alerts and a threshold, refusing a bad amount by field', async () => {
    const { h } = await withNotifications(set);
    const c = await signedUp(h, 'nia@example.com');
    const overview = await c.get('/');
    expect(overview.text).toContain('href="/notifications"');
    const page = await c.get('/notifications');
    expect(page.status).toBe(200);
    expect(page.text).toContain('aria-current="page"');
    expect(page.text).toContain('Delivery log');
    const bad = await c.form('/notifications/settings', { emailAlerts: 'on', threshold: 'lots' });
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(
      /id="f-threshold-error"[^>]*>Enter (an amount in EUR|a whole number of credits)/,
    );
    expect(bad.text).toContain('value="lots"');
    const account = await h.store.findAccountByEmail('nia@example.com');
    const id = account?.id ?? '';
    expect((await h.store.notificationSettings(id)).lowBalanceThreshold).toBeNull();
    // A takes EUR with cents; B whole credits (a fraction is refused).
    const ok = await c.form('/notifications/settings', { threshold: set === 'A' ? '2.50' : '500' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Alerts saved.');
    expect(ok.text).toContain(`value="${set === 'A' ? '2.50' : '500'}"`);
    expect(await h.store.notificationSettings(id)).toMatchObject({
      emailAlerts: false,
      lowBalanceThreshold: set === 'A' ? 25_000 : 500,
    });
    if (set === 'B') expect((await c.form('/notifications/settings', { threshold: '2.5' })).status).toBe(400);
    await c.form('/notifications/settings', { emailAlerts: 'on', threshold: '' });
    expect(await h.store.notificationSettings(id)).toMatchObject({
      emailAlerts: true,
      lowBalanceThreshold: null,
    });
  });

  test('adds webhook endpoints: https only, no private target, at most 2, the secret shown once and never logged', async () => {
    const { h } = await withNotifications(set);
    const c = await signedUp(h, 'wes@example.com');
    for (const [url, why] of [
      ['http://hooks.example.com/in', 'must start with https://'],
      ['https://127.0.0.1/in', 'loopback or private'],
      ['https://[::1]/in', 'loopback or private'],
      ['https://10.1.2.3/in', 'loopback or private'],
      ['https://localhost/in', 'loopback or private'],
      ['not a url', 'is not a URL'],
    ] as const) {
      const r = await c.form('/notifications/webhooks', { url });
      expect(r.status).toBe(400);
      expect(r.text).toContain(why);
    }
    const added = await c.form('/notifications/webhooks', { url: 'https://hooks.example.com/in' });
    expect(added.status).toBe(201);
    expect(added.headers['cache-control']).toBe('no-store');
    const secret = /value="(whsec_[A-Za-z0-9+/=]+)"/.exec(added.text)?.[1] ?? '';
    expect(secret).toMatch(/^whsec_/);
    // Never again: not on the page, not in the logs.
    const again = await c.get('/notifications');
    expect(again.text).toContain('https://hooks.example.com/in');
    expect(again.text).not.toContain(secret);
    expect(again.text).not.toContain(secret.slice(6));
    expect(h.logs.text).not.toContain(secret.slice(6));
    expect((await c.form('/notifications/webhooks', { url: 'https://b.example.com/' })).status).toBe(201);
    const third = await c.form('/notifications/webhooks', { url: 'https://c.example.com/' });
    expect(third.status).toBe(400);
    expect(third.text).toContain('At most 2 endpoints');
    // Another account cannot remove them.
    const account = await h.store.findAccountByEmail('wes@example.com');
    const [first] = await h.store.listWebhookEndpoints(account?.id ?? '');
    const other = await signedUp(h, 'oz@example.com');
    expect((await other.form(`/notifications/webhooks/${first?.id}/delete`, {})).status).toBe(404);
    expect((await c.form(`/notifications/webhooks/${first?.id}/delete`, {})).status).toBe(200);
    expect(await h.store.listWebhookEndpoints(account?.id ?? '')).toHaveLength(1);
  });

  test('"send test event" and a revocation are e-mailed once and shown in the delivery log', async () => {
    const { h, n } = await withNotifications(set);
    const c = await signedUp(h, 'tess@example.com');
    await c.form('/notifications/settings', { threshold: '' }); // e-mail alerts off, no endpoint
    expect((await c.form('/notifications/test', {})).text).toContain('Nothing to send to');
    await c.form('/notifications/settings', { emailAlerts: 'on', threshold: '' });
    const queued = await c.form('/notifications/test', {});
    expect(queued.status).toBe(200);
    expect(queued.text).toContain('Test event queued');
    const created = await c.api('post', '/api/keys', { label: 'gone soon' });
    expect((await c.form(`/keys/${created.body.id}/revoke`, {})).status).toBeLessThan(400);
    await new Promise((r) => setTimeout(r, 20)); // the revocation is recorded off the request
    expect(await n.worker.tick()).toBe(2);
    expect(await n.worker.tick()).toBe(0);
    expect(h.mail.notices.map((m) => [m.to, m.subject])).toEqual(
      expect.arrayContaining([
        ['tess@example.com', 'Test notification'],
        ['tess@example.com', 'A key was revoked'],
      ]),
    );
    expect(h.mail.notices).toHaveLength(2);
    const page = await c.get('/notifications');
    expect(page.text).toContain('Key revoked');
    expect(page.text).toMatch(/E-mail: tess@example.com/);
    expect(page.text).toContain('Delivered');
  });
});

test('"send test event" is limited per account and hour (429 with Retry-After); other accounts are not', async () => {
  const { h } = await withNotifications('A');
  const c = await signedUp(h, 'clicker@example.com');
  await c.form('/notifications/settings', { emailAlerts: 'on', threshold: '' });
  for (let i = 0; i < TEST_EVENT_LIMIT.count; i++) {
    expect((await c.form('/notifications/test', {})).status).toBe(200);
  }
  const refused = await c.form('/notifications/test', {});
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(refused.text).toContain('test events were sent this hour');
  const other = await signedUp(h, 'calm@example.com');
  await other.form('/notifications/settings', { emailAlerts: 'on', threshold: '' });
  expect((await other.form('/notifications/test', {})).status).toBe(200);
  h.clock.advance(TEST_EVENT_LIMIT.windowMs);
  expect((await c.form('/notifications/test', {})).status).toBe(200);
});

test('a deleted account is told nothing, even by an event recorded after its deletion', async () => {
  const { h, n } = await withNotifications('B');
  await signedUp(h, 'leaving@example.com');
  const account = await h.store.findAccountByEmail('leaving@example.com');
  const id = account?.id ?? '';
  await h.store.deleteAccount(id, `deleted-${id}@deleted.invalid`, h.clock.now());
  const recorded = await n.notifier.record({
    name: `allowance.80:${id}:late`,
    accountId: id,
    type: 'allowance.80',
    data: { late: true },
  });
  expect(recorded).toBe(false);
  expect(await n.worker.tick()).toBe(0);
  expect(h.mail.notices).toEqual([]);
});

test('without a notifications section there is no page and no link', async () => {
  const h = await dash('A');
  const c = await signedUp(h, 'no@example.com');
  expect((await c.get('/')).text).not.toContain('href="/notifications"');
  expect((await c.get('/notifications')).status).toBe(404);
});

/**
 * Notifications with two gateway instances on one shared store (issue 15 item 2 acceptance, D30): a real SMTP
 * server in the test process (messages parsed with mailparser) and a real HTTP receiver verifying every delivery
 * with the independent `standardwebhooks` package. Usage driven past 80 % and 100 % over both instances is told
 * exactly once by e-mail and once per webhook; so is a revocation, a low balance (once per crossing, re-armed by a
 * top-up), a plan ending; a receiver that fails twice gets the event once, and the log shows the three attempts.
 */
import { simpleParser } from 'mailparser';
import pino from 'pino';
import { systemClock } from '../../../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../../../gateway/core/keys';
import { newWebhookSecret } from '../../../gateway/notify/webhook';
import type { Store } from '../../../gateway/store/ports';
import { compileConfig, validateConfig } from '../../../runtime/config';
import { createGateway, type Gateway, type GatewayUrls } from '../../../runtime/server';
import { call } from '../../helpers/gateway-harness';
import { useBackendProcess } from '../../helpers/gateway-processes';
import { startSmtpCapture, type SmtpCapture } from '../../helpers/smtp-capture';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver';
import { ADMIN_TOKEN, PEPPER, describeShared, useSharedEnv, msUntil } from './fixture';

jest.setTimeout(120_000);

const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';

interface Instance extends GatewayUrls {
  gateway: Gateway;
  store: Store;
}

/** Poll until `probe` is true (fails after 10 s). */
const until = async (what: string, probe: () => boolean | Promise<boolean>): Promise<void> =>
  void (await msUntil(probe, what, 10_000));

describeShared('notifications with two gateway instances on one shared store', () => {
  const backend = useBackendProcess();
  const { env } = useSharedEnv('notify');
  let smtp: SmtpCapture;
  let hook: WebhookReceiver;
  let running: Instance[] = [];

  beforeEach(async () => {
    smtp = await startSmtpCapture();
    hook = await startWebhookReceiver();
  });
  afterEach(async () => {
    for (const i of running) await i.gateway.close();
    running = [];
    await smtp.close();
    await hook.close();
  });

  /** Two instances of rule set `policy` with a free allowance of 10, tiny timers and back-off. */
  async function pair(policy: 'A' | 'B'): Promise<[Instance, Instance]> {
    const doc = {
      policy,
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: ADMIN_TOKEN },
      backend: { url: backend.url, timeoutMs: 5000 },
      store: { kind: 'shared', postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix },
      keyPepper: PEPPER,
      trustProxy: ['127.0.0.1/32'],
      hosts: [{ name: 'localhost', adapter: 'native' }],
      limits: { freePerDay: 10 },
      dashboard: {
        listen: { host: '127.0.0.1', port: 0 },
        publicUrl: 'http://dash.test',
        sessionSecret: 'session-secret-for-notification-tests-0123456789',
        smtp: { host: smtp.host, port: smtp.port, from: 'alerts@geogate.test' },
        notifications: {
          webhooks: { allowPrivateTargets: true, timeoutMs: 2000 },
          retry: { firstDelayMs: 20, factor: 2, maxAttempts: 5 },
          worker: { intervalMs: 20 },
          sweepIntervalMs: 50,
        },
      },
    };
    const config = compileConfig(validateConfig(doc, 'notify-test.yaml', {}), 'notify-test.yaml');
    const logger = pino({ level: 'silent' });
    const start = async (): Promise<Instance> => {
      const store = await env.open();
      const gateway = createGateway({ config, store, clock: systemClock, logger, adminToken: ADMIN_TOKEN });
      const i = { ...(await gateway.listen()), gateway, store };
      running.push(i);
      return i;
    };
    return [await start(), await start()];
  }

  /** An account with a webhook endpoint on the receiver, and a pay-per-use key. */
  async function customer(store: Store) {
    const account = await store.createAccount(
      { email: `c${Date.now()}${Math.random()}@example.org` },
      Date.now(),
    );
    const secret = newWebhookSecret();
    await store.addWebhookEndpoint(account.id, hook.url, secret.key, 5, Date.now());
    hook.secret = secret.shown;
    const key = generateKey();
    const record = await store.createKey(
      {
        accountId: account.id,
        hash: hashKey(key, PEPPER),
        prefix: keyPrefix(key),
        kind: 'payg',
        label: 'main',
      },
      Date.now(),
    );
    return { account, key, record };
  }

  /** The subjects of the mails to `to`, parsed with mailparser. */
  async function subjects(to: string): Promise<string[]> {
    const mails = smtp.messages.filter((m) => m.to.includes(to));
    return Promise.all(mails.map(async (m) => (await simpleParser(m.raw)).subject ?? ''));
  }
  const hookTypes = () => hook.delivered().map((r) => r.payload?.type);
  const count = (list: unknown[], x: unknown) => list.filter((y) => y === x).length;

  for (const policy of ['A', 'B'] as const) {
    it(`${policy}: usage past 80 % and 100 % over both instances, then a revocation: each told once per channel`, async () => {
      const [a, b] = await pair(policy);
      const c = await customer(a.store);
      for (let i = 0; i < 14; i++) {
        const r = await call((i % 2 === 0 ? a : b).mainUrl, REVERSE, {
          headers: { 'x-forwarded-for': '198.51.100.7', 'x-api-key': c.key },
        });
        expect(r.status).toBe(i < 10 ? 200 : policy === 'A' ? 402 : 429);
      }
      const revoked = await call(b.adminUrl, `/admin/keys/${c.record.id}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(revoked.status).toBe(200);
      const expected = ['allowance.80', 'allowance.100', 'key.revoked'];
      await until('three webhooks and three mails', async () => {
        return hookTypes().length >= 3 && (await subjects(c.account.email)).length >= 3;
      });
      // Both instances kept working for a while: nothing is sent twice.
      await new Promise((r) => setTimeout(r, 400));
      const types = hookTypes();
      for (const t of expected) expect(count(types, t)).toBe(1);
      expect(types).toHaveLength(3);
      expect(new Set(hook.received.map((r) => r.id)).size).toBe(3);
      expect((await subjects(c.account.email)).sort()).toEqual([
        'A key was revoked',
        'Free allowance 100 % used',
        'Free allowance 80 % used',
      ]);
      const p100 = hook.delivered().find((r) => r.payload?.type === 'allowance.100')?.payload;
      expect(p100?.data).toMatchObject({
        accountId: c.account.id,
        keyId: policy === 'A' ? c.record.id : null,
        percent: 100,
        used: 10,
        limit: 10,
      });
      // The customer's log: one delivered attempt per delivery.
      const log = await a.store.deliveryLog(c.account.id, 50);
      expect(log).toHaveLength(6);
      expect(log.every((l) => l.ok && l.attempt === 1)).toBe(true);
    });
  }

  it('B: a webhook failing twice is delivered once on the third attempt; low balance once per crossing; plan ending once', async () => {
    const [a, b] = await pair('B');
    const c = await customer(a.store);
    hook.failNext = 2;
    await a.store.setNotificationSettings(c.account.id, true, 5);
    await until('low balance by e-mail and webhook', async () => {
      return (
        count(hookTypes(), 'balance.low') === 1 &&
        (await subjects(c.account.email)).includes('Your balance is low')
      );
    });
    expect(hook.received.filter((r) => r.payload?.type === 'balance.low').map((r) => r.status)).toEqual([
      500, 500, 204,
    ]);
    const log = (await b.store.deliveryLog(c.account.id, 50)).filter((l) => l.channel === 'webhook');
    expect(log.map((l) => [l.attempt, l.ok, l.httpStatus])).toEqual([
      [3, true, 204],
      [2, false, 500],
      [1, false, 500],
    ]);
    // A top-up re-arms; the balance falls below again through billed requests: a second crossing, told once.
    await a.store.credit(c.account.id, 6, null, Date.now());
    await until('re-armed', async () => (await a.store.notificationSettings(c.account.id)).lowBalanceArmed);
    for (let i = 0; i < 12; i++) {
      const r = await call((i % 2 === 0 ? a : b).mainUrl, REVERSE, {
        headers: { 'x-forwarded-for': '198.51.100.8', 'x-api-key': c.key },
      });
      expect(r.status).toBe(200);
    }
    await until('second low balance', () => count(hookTypes(), 'balance.low') === 2);
    // The plan ends in 3 days: told once, whatever the number of sweeps.
    await a.store.setUnlimitedUntil(c.account.id, Date.now() + 3 * 86_400_000);
    await until('plan ending', () => count(hookTypes(), 'unlimited.ending') === 1);
    await new Promise((r) => setTimeout(r, 400));
    const types = hookTypes();
    expect(count(types, 'balance.low')).toBe(2);
    expect(count(types, 'unlimited.ending')).toBe(1);
    expect(count(types, 'allowance.80')).toBe(1);
    expect(count(types, 'allowance.100')).toBe(1);
    const mails = await subjects(c.account.email);
    expect(count(mails, 'Your balance is low')).toBe(2);
    expect(count(mails, 'Your Unlimited plan ends soon')).toBe(1);
  });
});

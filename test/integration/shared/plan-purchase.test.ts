/**
 * Rule set B's Unlimited plan bought through the dashboard on the shared store (PostgreSQL + Redis), with two gateway
 * instances: the paid Stripe webhook, handled by a dashboard on instance 0's store, extends the plan once, and the
 * other instance's admission (forward auth /v1/admit, no backend needed) admits the account's requests past the
 * allowance within 1 s, through the store's usual invalidation bus. The Stripe event is replayed as Stripe's API
 * reference documents `checkout.session.completed` and signed with the library's generateTestHeaderString.
 */
import http from 'node:http';
import pino from 'pino';
import Stripe from 'stripe';
import request from 'supertest';
import { createDashboardApp } from '../../../dashboard/app';
import type { DashboardConfig, StripeConfig } from '../../../dashboard/config';
import { describeShared, msUntil, startPair, useSharedEnv, type Pair } from './fixture';

jest.setTimeout(60_000);

const DAY = 86_400_000;
const CFG: StripeConfig = {
  secretKey: 'sk_test_offline_never_used',
  webhookSecret: 'whsec_test_secret_for_signatures',
  priceCurrency: 'eur',
  unitsPerMinorUnit: 1,
};
const stripe = new Stripe(CFG.secretKey);

/** Ask an instance's /v1/admit as nginx would; resolves with the status. */
function admit(url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL('/v1/admit', url), {
      headers: {
        'x-original-uri': '/v1/reverse?lat=48.8584&lon=2.2945',
        'x-original-method': 'GET',
        'x-forwarded-host': 'localhost',
        'x-forwarded-for': '198.51.100.30',
        'x-api-key': key,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describeShared('Unlimited plan bought on the shared store', () => {
  const { env } = useSharedEnv('planbuy');
  let pair: Pair;
  beforeAll(async () => {
    pair = await startPair(env, 'B', 'http://127.0.0.1:9', {
      limits: { freePerDay: 1 },
      forwardAuth: { listen: { host: '127.0.0.1', port: 0 }, releaseWindowMs: 1000 },
    });
  });
  afterAll(() => pair?.close());

  test('a paid webhook extends the plan once; the other instance admits past the allowance within 1 s', async () => {
    const store = pair.instances[0].store;
    const account = await store.createAccount({ email: 'plan-shared@example.org' }, pair.clock.now());
    const { key } = await pair.key(account.id);
    const fa = (i: 0 | 1): string => pair.instances[i].forwardAuthUrl as string;
    // One free request, then refused on both instances (no credits, no plan): each has the account cached now.
    expect(await admit(fa(0), key)).toBe(200);
    expect([await admit(fa(0), key), await admit(fa(1), key)]).toEqual([429, 429]);

    const config: DashboardConfig = {
      listen: { host: '127.0.0.1', port: 0 },
      publicUrl: 'http://dash.test',
      sessionSecret: 'session-secret-for-dashboard-tests-0123456789',
      unlimitedPlan: { price: '199.00', currency: 'EUR', periodDays: 30 },
      payments: { provider: 'stripe', stripe: CFG },
    };
    const app = createDashboardApp({
      store,
      rules: pair.config.rules,
      pepper: 'unused-here',
      clock: pair.clock,
      logger: pino({ level: 'silent' }),
      config,
    });
    const body = JSON.stringify({
      id: 'evt_plan_shared',
      object: 'event',
      type: 'checkout.session.completed',
      data: {
        object: {
          id: 'cs_test_plan_shared',
          object: 'checkout.session',
          mode: 'payment',
          status: 'complete',
          payment_status: 'paid',
          amount_total: 19_900,
          currency: 'eur',
          client_reference_id: account.id,
          metadata: {
            kind: 'unlimited_plan',
            accountId: account.id,
            days: '30',
            priceMinor: '19900',
            currency: 'EUR',
          },
          payment_intent: 'pi_plan_shared',
        },
      },
    });
    const deliver = () =>
      request(app)
        .post('/webhooks/stripe')
        .set('Content-Type', 'application/json')
        .set(
          'Stripe-Signature',
          stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret }),
        )
        .send(body);
    // Two deliveries at once (Stripe retries; two dashboards may get one each): one period.
    const answers = await Promise.all([deliver(), deliver()]);
    expect(answers.map((r) => r.body.extended).sort()).toEqual([false, true]);
    const ms = await msUntil(async () => (await admit(fa(1), key)) === 200, 'plan on the other instance');
    expect(ms).toBeLessThan(1_000);
    expect(await admit(fa(0), key)).toBe(200);
    const after = await pair.instances[1].store.getAccount(account.id);
    expect(after?.unlimitedUntil).toBe(pair.clock.now() + 30 * DAY);
    expect(after?.balance).toBe(0);
    expect(await store.listReceipts(account.id, 10)).toHaveLength(1);
    expect((await deliver()).body).toEqual({ received: true, extended: false });
    expect((await store.getAccount(account.id))?.unlimitedUntil).toBe(pair.clock.now() + 30 * DAY);
  });
});

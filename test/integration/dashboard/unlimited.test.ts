/**
 * Rule set B's Unlimited plan bought and renewed in the dashboard (dashboard/payments/unlimited*.ts), on the embedded
 * store. Third-party answers are replayed, not reached: Stripe's side is the `checkout.session.completed` event with
 * the Checkout Session object as Stripe's API reference documents it (id, object, mode, status, payment_status,
 * amount_total, currency, client_reference_id, metadata, payment_intent), signed with the library's own
 * generateTestHeaderString, and Checkout Session creation goes to an injected client that answers `{ id, url }` like
 * Stripe; BTCPay Server's side is the Greenfield stand-in (test/helpers/greenfield-stand-in.ts: documented InvoiceData
 * and webhook deliveries signed with BTCPay-Sig), the same ones the top-up tests replay.
 */
import Stripe from 'stripe';
import request from 'supertest';
import type { StripeConfig, UnlimitedPlanConfig } from '../../../dashboard/config';
import type { CheckoutClient } from '../../../dashboard/payments/stripe-provider';
import { GreenfieldClient } from '../../../dashboard/payments/btcpay';
import { delivery, GreenfieldStandIn, sign } from '../../helpers/greenfield-stand-in';
import { ORIGIN, signedIn, signedUp, START, type Harness, useDashboards } from './fixture';

const DAY = 86_400_000;
const PLAN: UnlimitedPlanConfig = { price: '199.00', currency: 'EUR', periodDays: 30 };
const CFG: StripeConfig = {
  secretKey: 'sk_test_offline_never_used',
  webhookSecret: 'whsec_test_secret_for_signatures',
  priceCurrency: 'eur',
  unitsPerMinorUnit: 1,
};
const stripe = new Stripe(CFG.secretKey);
const dash = useDashboards();

const planIdOf = (text: string): string => /name="planId" value="([^"]+)"/.exec(text)?.[1] ?? '';
const accountOf = async (h: Harness, email: string) => (await h.store.findAccountByEmail(email))!;

describe('Unlimited plan with the demo provider (rule set B)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await dash('B', { config: { unlimitedPlan: PLAN } });
  });

  test('the credit page offers the plan; buying starts it now, renewing extends it from its end, each with a receipt', async () => {
    const c = await signedUp(h, 'plan@example.com');
    const page = await c.get('/credit');
    expect(page.text).toMatch(/data-price="plan">\s*<strong>€199\.00 for 30 days<\/strong>/);
    expect(page.text).toContain('Buy (test payment)');
    expect(page.text).toContain('data-plan="credits"');
    const bought = await c.form('/unlimited', { planId: planIdOf(page.text), method: 'card' });
    expect(bought.status).toBe(200);
    expect(bought.text).toContain('Unlimited plan paid until 2026-03-02 10:00 UTC');
    const a = await accountOf(h, 'plan@example.com');
    expect(a.unlimitedUntil).toBe(START + 30 * DAY);
    expect(a.balance).toBe(0);
    expect(bought.text).toContain('data-plan="unlimited"');
    expect(bought.text).toContain('Renew (test payment)');

    // Ten days later, a renewal adds 30 days to the plan's end (not to today).
    h.clock.advance(10 * DAY);
    const c2 = await signedIn(h, 'plan@example.com'); // the first session has expired by now
    const page2 = await c2.get('/credit');
    const renewed = await c2.form('/unlimited', { planId: planIdOf(page2.text), method: 'card' });
    expect(renewed.status).toBe(200);
    expect((await accountOf(h, 'plan@example.com')).unlimitedUntil).toBe(START + 60 * DAY);
    const periods = await h.store.planPeriods(a.id, 10);
    expect(periods.map((p) => [p.startsAt, p.endsAt])).toEqual([
      [START + 30 * DAY, START + 60 * DAY],
      [START, START + 30 * DAY],
    ]);
    // One receipt per payment, of the price paid, with its period.
    const receipts = await h.store.listReceipts(a.id, 10);
    expect(receipts.map((r) => [r.kind, r.method, r.paid])).toEqual([
      ['plan', 'test', { minor: 19_900, currency: 'EUR' }],
      ['plan', 'test', { minor: 19_900, currency: 'EUR' }],
    ]);
    const billing = await c2.get('/billing');
    expect(billing.text).toContain('Unlimited plan, 30 days');
    const doc = await c2.get(`/receipts/${receipts[0]?.number}`);
    expect(doc.text).toContain('2026-03-02 to 2026-04-01 (UTC)');
    expect(doc.text).toContain('€199.00 (test, not charged)');
    const pdf = await c2.get(`/receipts/${receipts[0]?.number}.pdf`);
    expect(pdf.status).toBe(200);
  });

  test('a double submit of one form buys once; bad input is a field error that changes nothing', async () => {
    const c = await signedUp(h, 'twice@example.com');
    const planId = planIdOf((await c.get('/credit')).text);
    expect((await c.form('/unlimited', { planId, method: 'card' })).status).toBe(200);
    expect((await c.form('/unlimited', { planId, method: 'card' })).status).toBe(200);
    const a = await accountOf(h, 'twice@example.com');
    expect(a.unlimitedUntil).toBe(START + 30 * DAY);
    expect(await h.store.listReceipts(a.id, 10)).toHaveLength(1);
    for (const [fields, text] of [
      [{ planId: 'short', method: 'card' }, 'The form has expired'],
      [{ planId: 'abcdefgh1234', method: 'cash' }, 'The payment method is'],
      [{ planId: 'abcdefgh1234', method: 'crypto' }, 'Crypto payments are not configured here'],
    ] as const) {
      const r = await c.form('/unlimited', fields);
      expect(r.status).toBe(400);
      expect(r.text).toContain(text);
      expect(r.text).toContain('id="plan-error" role="alert"');
    }
    expect((await accountOf(h, 'twice@example.com')).unlimitedUntil).toBe(START + 30 * DAY);
  });

  test('a plan paid more than a year ahead cannot be extended further now', async () => {
    const c = await signedUp(h, 'ahead@example.com');
    const a = await accountOf(h, 'ahead@example.com');
    await h.store.setUnlimitedUntil(a.id, START + 400 * DAY); // the operator, by hand
    const page = await c.get('/credit');
    expect(page.text).toContain('data-plan-ahead');
    const r = await c.form('/unlimited', { planId: 'abcdefgh1234', method: 'card' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('renew within a year of its end');
    expect((await accountOf(h, 'ahead@example.com')).unlimitedUntil).toBe(START + 400 * DAY);
  });
});

describe('Unlimited plan outside a sold plan', () => {
  test('rule set A: the plan route is not in the rule set (404), packages stay', async () => {
    const h = await dash('A');
    const c = await signedUp(h, 'a@example.com');
    const r = await c.form('/unlimited', { planId: 'abcdefgh1234', method: 'card' });
    expect(r.status).toBe(404);
    expect(r.text).toContain('sells Unlimited packages, not a plan');
    expect((await c.get('/credit')).text).not.toContain('action="/unlimited"');
  });

  test('rule set B without unlimitedPlan: set up by the operator, no form; a POST is a field error', async () => {
    const h = await dash('B');
    const c = await signedUp(h, 'b@example.com');
    const page = await c.get('/credit');
    expect(page.text).toContain('set up by our team on request');
    expect(page.text).not.toContain('action="/unlimited"');
    const r = await c.form('/unlimited', { planId: 'abcdefgh1234', method: 'card' });
    expect(r.status).toBe(400);
    expect((await accountOf(h, 'b@example.com')).unlimitedUntil).toBeNull();
  });
});

/** A Checkout client that records what it was asked and answers like Stripe. */
function recordingClient(): CheckoutClient & { calls: { params: unknown; key: string | undefined }[] } {
  const calls: { params: unknown; key: string | undefined }[] = [];
  return {
    calls,
    checkout: {
      sessions: {
        async create(params, options) {
          calls.push({ params, key: options?.idempotencyKey });
          return {
            id: `cs_test_${calls.length}`,
            url: `https://checkout.stripe.com/c/pay/cs_test_${calls.length}`,
          };
        },
      },
    },
  };
}

/** A checkout.session.completed event as Stripe documents it, for a session that paid `minor` cents. */
function completed(id: string, metadata: Record<string, string>, minor: number, status = 'paid'): string {
  return JSON.stringify({
    id: `evt_${id}`,
    object: 'event',
    api_version: '2024-06-20',
    type: 'checkout.session.completed',
    data: {
      object: {
        id,
        object: 'checkout.session',
        mode: 'payment',
        status: 'complete',
        payment_status: status,
        amount_total: minor,
        currency: 'eur',
        client_reference_id: metadata['accountId'],
        metadata,
        payment_intent: `pi_${id}`,
      },
    },
  });
}

describe('Unlimited plan by card through Stripe (rule set B)', () => {
  let h: Harness;
  let client: ReturnType<typeof recordingClient>;
  beforeEach(async () => {
    client = recordingClient();
    h = await dash('B', {
      config: { unlimitedPlan: PLAN, payments: { provider: 'stripe', stripe: CFG } },
      deps: { planCheckout: client },
    });
  });
  const hook = (body: string) =>
    request(h.app)
      .post('/webhooks/stripe')
      .set('Content-Type', 'application/json')
      .set(
        'Stripe-Signature',
        stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret }),
      )
      .send(body);

  test('buying opens a Checkout Session for the price; the paid webhook extends the plan exactly once', async () => {
    const c = await signedUp(h, 'card@example.com');
    const page = await c.get('/credit');
    expect(page.text).toContain('Buy: pay by card');
    const planId = planIdOf(page.text);
    const r = await c.form('/unlimited', { planId, method: 'card' });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('https://checkout.stripe.com/c/pay/cs_test_1');
    const a = await accountOf(h, 'card@example.com');
    const metadata = {
      kind: 'unlimited_plan',
      accountId: a.id,
      days: '30',
      priceMinor: '19900',
      currency: 'EUR',
    };
    expect(client.calls[0]).toEqual({
      key: `plan:${a.id}:${planId}`,
      params: {
        mode: 'payment',
        customer_email: 'card@example.com',
        client_reference_id: a.id,
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'eur',
              unit_amount: 19_900,
              product_data: { name: 'Unlimited plan, 30 days' },
            },
          },
        ],
        metadata,
        success_url: `${ORIGIN}/credit?plan=pending`,
        cancel_url: `${ORIGIN}/credit?plan=cancelled`,
      },
    });
    expect(a.unlimitedUntil).toBeNull(); // extended by the webhook only
    expect((await c.get('/credit?plan=pending')).text).toContain(
      'the Unlimited plan is extended when it settles',
    );

    const body = completed('cs_test_1', metadata, 19_900);
    expect((await hook(body)).body).toEqual({ received: true, extended: true });
    expect((await hook(body)).body).toEqual({ received: true, extended: false });
    const after = await accountOf(h, 'card@example.com');
    expect(after.unlimitedUntil).toBe(START + 30 * DAY);
    expect(after.balance).toBe(0); // a plan payment is not credit
    const receipts = await h.store.listReceipts(a.id, 10);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      kind: 'plan',
      method: 'card',
      paid: { minor: 19_900, currency: 'EUR' },
      paymentRef: 'pi_cs_test_1',
    });
    // A second session (a renewal) adds its days to the end.
    expect((await hook(completed('cs_test_2', metadata, 19_900))).body.extended).toBe(true);
    expect((await accountOf(h, 'card@example.com')).unlimitedUntil).toBe(START + 60 * DAY);
    // A refund of a plan payment (Stripe's documented charge.refunded) is the operator's to act on: no balance or
    // plan change here, and no credit note (docs/decisions.md, "Refunds are manual").
    const refund = JSON.stringify({
      id: 'evt_refund_plan',
      object: 'event',
      type: 'charge.refunded',
      data: {
        object: {
          id: 'ch_plan_1',
          object: 'charge',
          amount: 19_900,
          amount_captured: 19_900,
          amount_refunded: 19_900,
          currency: 'eur',
          captured: true,
          paid: true,
          payment_intent: 'pi_cs_test_1',
          refunded: true,
          status: 'succeeded',
        },
      },
    });
    expect((await hook(refund)).body).toEqual({ received: true, refunded: false });
    const refunded = await accountOf(h, 'card@example.com');
    expect([refunded.unlimitedUntil, refunded.balance]).toEqual([START + 60 * DAY, 0]);
    expect(await h.store.listReceipts(a.id, 10)).toHaveLength(2);
  });

  test('a session paying another amount, unpaid, or naming an unknown account extends nothing', async () => {
    await signedUp(h, 'odd@example.com');
    const a = await accountOf(h, 'odd@example.com');
    const meta = {
      kind: 'unlimited_plan',
      accountId: a.id,
      days: '30',
      priceMinor: '19900',
      currency: 'EUR',
    };
    expect((await hook(completed('cs_low', meta, 100))).body).toEqual({ received: true, extended: false });
    expect((await hook(completed('cs_unpaid', meta, 19_900, 'unpaid'))).body.extended).toBe(false);
    const ghost = { ...meta, accountId: 'acc_00000000000000000000' };
    expect((await hook(completed('cs_ghost', ghost, 19_900))).body).toEqual({
      received: true,
      extended: false,
    });
    expect((await accountOf(h, 'odd@example.com')).unlimitedUntil).toBeNull();
    expect(await h.store.listReceipts(a.id, 10)).toEqual([]);
    expect(h.logs.text).toContain('Unlimited plan payment not applied; refund it');
  });

  test('Stripe unreachable: 502 payment_failed next to the form, nothing charged', async () => {
    const failing: CheckoutClient = {
      checkout: { sessions: { create: () => Promise.reject(new Error('connect ECONNREFUSED')) } },
    };
    h = await dash('B', {
      config: { unlimitedPlan: PLAN, payments: { provider: 'stripe', stripe: CFG } },
      deps: { planCheckout: failing },
    });
    const c = await signedUp(h, 'down@example.com');
    const r = await c.form('/unlimited', { planId: planIdOf((await c.get('/credit')).text), method: 'card' });
    expect(r.status).toBe(502);
    expect(r.text).toContain('could not be reached; nothing was charged');
  });
});

describe('Unlimited plan in crypto through BTCPay Server (rule set B)', () => {
  let h: Harness;
  let gf: GreenfieldStandIn;
  beforeEach(async () => {
    gf = new GreenfieldStandIn();
    await gf.start();
    const cfg = gf.config(1);
    h = await dash('B', {
      config: {
        unlimitedPlan: PLAN,
        payments: { provider: 'test', crypto: { provider: 'btcpay', btcpay: cfg } },
      },
      deps: { greenfield: new GreenfieldClient(cfg) },
    });
  });
  afterEach(() => gf.close());
  const hook = (body: string) =>
    request(h.app)
      .post('/webhooks/btcpay')
      .set('Content-Type', 'application/json')
      .set('BTCPay-Sig', sign(body))
      .send(body);

  test('an invoice for the price; InvoiceSettled extends once whatever the deliveries; a changed amount extends nothing', async () => {
    const c = await signedUp(h, 'sats@example.com');
    const page = await c.get('/credit');
    expect(page.text).toContain('Buy: pay in crypto');
    const planId = planIdOf(page.text);
    const r = await c.form('/unlimited', { planId, method: 'crypto' });
    expect(r.status).toBe(303);
    const [id, invoice] = [...gf.invoices.entries()][0] ?? [];
    expect(r.headers.location).toBe(`${gf.url}/i/${id}`);
    const a = await accountOf(h, 'sats@example.com');
    expect(invoice).toMatchObject({
      amount: '199.00',
      currency: 'EUR',
      metadata: {
        kind: 'unlimited_plan',
        accountId: a.id,
        days: '30',
        priceMinor: '19900',
        orderId: `plan:${a.id}:${planId}`,
      },
      checkout: { redirectURL: `${ORIGIN}/credit?plan=pending` },
    });
    // Not settled yet: nothing.
    expect((await hook(delivery('InvoiceSettled', id ?? ''))).body).toEqual({
      received: true,
      extended: false,
    });
    gf.set(id ?? '', { status: 'Settled', amount: '199' }); // Greenfield may write 199.00 as "199"
    expect((await hook(delivery('InvoiceSettled', id ?? ''))).body).toEqual({
      received: true,
      extended: true,
    });
    expect((await hook(delivery('InvoiceSettled', id ?? '', true))).body).toEqual({
      received: true,
      extended: false,
    });
    expect((await accountOf(h, 'sats@example.com')).unlimitedUntil).toBe(START + 30 * DAY);
    const receipts = await h.store.listReceipts(a.id, 10);
    expect(receipts.map((x) => [x.kind, x.method, x.paid])).toEqual([
      ['plan', 'crypto', { minor: 19_900, currency: 'EUR' }],
    ]);

    // A second invoice whose amount was changed on the server: no period.
    const again = await c.form('/unlimited', {
      planId: planIdOf((await c.get('/credit')).text),
      method: 'crypto',
    });
    expect(again.status).toBe(303);
    const second = [...gf.invoices.keys()][1] ?? '';
    gf.set(second, { status: 'Settled', amount: '1.99' });
    expect((await hook(delivery('InvoiceSettled', second))).body).toEqual({
      received: true,
      extended: false,
    });
    expect((await accountOf(h, 'sats@example.com')).unlimitedUntil).toBe(START + 30 * DAY);
  });
});

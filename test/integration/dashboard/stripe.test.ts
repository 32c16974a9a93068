/**
 * Card top-ups through Stripe Checkout, offline: the Checkout Session parameters go to an injected client (no
 * network), and the webhook is driven with signatures from the library's generateTestHeaderString.
 */
import Stripe from 'stripe';
import request from 'supertest';
import type { StripeConfig } from '../../../dashboard/config';
import { stripeProvider, type CheckoutClient } from '../../../dashboard/payments/stripe-provider';
import { ORIGIN, signedUp, type Harness, useDashboards } from './fixture';

const CFG: StripeConfig = {
  secretKey: 'sk_test_offline_never_used',
  webhookSecret: 'whsec_test_secret_for_signatures',
  priceCurrency: 'eur',
  unitsPerMinorUnit: 100,
};
const stripe = new Stripe(CFG.secretKey);

/** A Checkout client that records what it was asked and answers like Stripe would. */
function recordingClient(): CheckoutClient & {
  calls: { params: Stripe.Checkout.SessionCreateParams; options?: Stripe.RequestOptions }[];
} {
  const calls: { params: Stripe.Checkout.SessionCreateParams; options?: Stripe.RequestOptions }[] = [];
  return {
    calls,
    checkout: {
      sessions: {
        async create(params, options) {
          calls.push({ params, ...(options ? { options } : {}) });
          return { id: 'cs_test_1', url: 'https://checkout.stripe.com/c/pay/cs_test_1' };
        },
      },
    },
  };
}

/** A checkout.session.completed event body. */
function completed(id: string, accountId: string, units: number, paidMinor: number, status = 'paid'): string {
  return JSON.stringify({
    id: `evt_${id}`,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id,
        object: 'checkout.session',
        payment_status: status,
        amount_total: paidMinor,
        currency: 'eur',
        metadata: { accountId, units: String(units) },
      },
    },
  });
}

let h: Harness;
const dash = useDashboards();

describe('Stripe Checkout top-ups (rule set A)', () => {
  let client: ReturnType<typeof recordingClient>;
  beforeEach(async () => {
    client = recordingClient();
    h = await dash('A', {
      config: { payments: { provider: 'stripe', stripe: CFG } },
      deps: { payments: stripeProvider(CFG, ORIGIN, client) },
    });
  });

  const post = (body: string, signature?: string) => {
    const t = request(h.app).post('/webhooks/stripe').set('Content-Type', 'application/json');
    return (signature ? t.set('Stripe-Signature', signature) : t).send(body);
  };

  test('a top-up creates a Checkout Session with the right amount, currency, account and return URLs', async () => {
    const c = await signedUp(h, 'card@example.com');
    const page = await c.get('/credit');
    expect(page.text).toContain('Pay by card');
    const topUpId = /name="topUpId" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const r = await c.form('/credit/top-up', { amount: '25.50', topUpId });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('https://checkout.stripe.com/c/pay/cs_test_1');
    const account = await h.store.findAccountByEmail('card@example.com');
    expect(client.calls).toHaveLength(1);
    expect(client.calls[0]?.params).toEqual({
      mode: 'payment',
      customer_email: 'card@example.com',
      client_reference_id: account?.id,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: 'eur',
            unit_amount: 2550,
            product_data: { name: 'Geocoding credit top-up' },
          },
        },
      ],
      metadata: { accountId: account?.id, units: '255000' },
      success_url: `${ORIGIN}/credit?topup=pending`,
      cancel_url: `${ORIGIN}/credit?topup=cancelled`,
    });
    expect(client.calls[0]?.options?.idempotencyKey).toBe(`topup:${account?.id}:${topUpId}`);
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(0); // credited by the webhook only
  });

  test('amounts that are not whole cents, or below 0.50, are refused before Stripe is called', async () => {
    const c = await signedUp(h, 'card@example.com');
    for (const amount of ['10.005', '0.40']) {
      const r = await c.api('post', '/api/credit/top-ups', { amount, idempotencyKey: 'abcdefgh12' });
      expect(r.status).toBe(400);
      expect(r.body.field).toBe('amount');
    }
    expect(client.calls).toHaveLength(0);
  });

  test('the signed webhook credits the account exactly once per session id', async () => {
    await signedUp(h, 'card@example.com');
    const account = await h.store.findAccountByEmail('card@example.com');
    const body = completed('cs_test_A', account?.id ?? '', 255_000, 2550);
    const sig = stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret });
    const first = await post(body, sig);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, credited: true });
    const again = await post(
      body,
      stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret }),
    );
    expect(again.body).toEqual({ received: true, credited: false });
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(255_000);
    const ledger = await h.store.ledger(account?.id ?? '', 10);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]?.ref).toBe('stripe:cs_test_A');
    // One receipt (D31), by card, of what was paid: the second delivery took no number.
    const receipts = await h.store.listReceipts(account?.id ?? '', 10);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      method: 'card',
      amount: 255_000,
      currency: 'EUR',
      paid: { minor: 2550, currency: 'EUR' },
    });
  });

  test('a payment for an account deleted after checkout is answered (no retries), credits nothing, takes no receipt', async () => {
    await signedUp(h, 'gone@example.com');
    const account = await h.store.findAccountByEmail('gone@example.com');
    const id = account?.id ?? '';
    await h.store.deleteAccount(id, `deleted-${id}@deleted.invalid`, h.clock.now());
    const body = completed('cs_test_gone', id, 100_000, 1000);
    for (let i = 0; i < 2; i++) {
      const r = await post(
        body,
        stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret }),
      );
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ received: true, credited: false });
    }
    expect(await h.store.getAccount(id)).toMatchObject({ status: 'deleted', balance: 0 });
    expect(await h.store.ledger(id, 10)).toEqual([]);
    expect(await h.store.listReceipts(id, 10)).toEqual([]);
    expect(h.logs.text).toContain('payment for an account that no longer exists');
  });

  test('a bad or missing signature is refused with 400 and credits nothing', async () => {
    await signedUp(h, 'card@example.com');
    const account = await h.store.findAccountByEmail('card@example.com');
    const body = completed('cs_test_B', account?.id ?? '', 100_000, 1000);
    const wrong = stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_someone_else' });
    expect((await post(body, wrong)).status).toBe(400);
    expect((await post(body)).status).toBe(400);
    const tampered = completed('cs_test_B', account?.id ?? '', 900_000, 1000);
    const sig = stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret });
    expect((await post(tampered, sig)).status).toBe(400);
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(0);
  });

  test('an unpaid session, or one whose paid amount differs from the units, credits nothing', async () => {
    await signedUp(h, 'card@example.com');
    const account = await h.store.findAccountByEmail('card@example.com');
    for (const body of [
      completed('cs_test_C', account?.id ?? '', 100_000, 1000, 'unpaid'),
      completed('cs_test_D', account?.id ?? '', 900_000, 1000),
    ]) {
      const r = await post(
        body,
        stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret }),
      );
      expect(r.status).toBe(200);
      expect(r.body.credited).toBe(false);
    }
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(0);
  });
});

describe('Stripe Checkout top-ups (rule set B): the price of a credit (issue 15 item 3)', () => {
  test('the credit page shows what one credit costs by card, from priceCurrency and unitsPerMinorUnit', async () => {
    const cfg: StripeConfig = { ...CFG, priceCurrency: 'usd', unitsPerMinorUnit: 4 };
    h = await dash('B', {
      config: { payments: { provider: 'stripe', stripe: cfg } },
      deps: { payments: stripeProvider(cfg, ORIGIN, recordingClient()) },
    });
    const c = await signedUp(h, 'card@example.com');
    const page = (await c.get('/credit')).text.replace(/\s+/g, ' ');
    expect(page).toContain('<dd data-price="credit"><strong>$0.0025</strong> per credit</dd>');
  });
});

/**
 * Crypto top-ups through BTCPay Server (issue 15 item 6, D32). BTCPay Server itself (a .NET service with a Bitcoin
 * node) cannot run here, so its Greenfield API is a local HTTP stand-in that answers with the documented shapes of
 * the Greenfield API reference: `InvoiceData` (id, storeId, amount as a decimal string, currency, type, status New /
 * Processing / Settled / Expired / Invalid, checkoutLink, createdTime, expirationTime, metadata) for "Create invoice"
 * (POST /api/v1/stores/{storeId}/invoices) and "Get invoice" (GET .../invoices/{invoiceId}), and 404 with
 * `{"code":"invoice-not-found","message":...}` for an unknown id. Webhook deliveries are built as the webhook
 * documentation describes them (deliveryId, webhookId, originalDeliveryId, isRedelivery, type, timestamp, storeId,
 * invoiceId, manuallyMarked) and signed as BTCPay Server signs them: `BTCPay-Sig: sha256=<HMAC-SHA256 hex of the body>`.
 */
import request from 'supertest';
import type { BtcpayConfig } from '../../../dashboard/config';
import { GreenfieldClient, invoiceAmount } from '../../../dashboard/payments/btcpay';
import { validBtcpaySignature } from '../../../dashboard/payments/btcpay-webhook';
import {
  delivery,
  GreenfieldStandIn,
  sign,
  STAND_IN_API_KEY,
  STAND_IN_STORE,
  STAND_IN_WEBHOOK_SECRET,
} from '../../helpers/greenfield-stand-in';
import { signedUp, type Harness, useDashboards } from './fixture';

let h: Harness;
let gf: GreenfieldStandIn;
const dash = useDashboards();

async function start(rules: 'A' | 'B', unitsPerMinorUnit: number): Promise<BtcpayConfig> {
  gf = new GreenfieldStandIn();
  await gf.start();
  const cfg = gf.config(unitsPerMinorUnit);
  h = await dash(rules, {
    config: { payments: { provider: 'test', crypto: { provider: 'btcpay', btcpay: cfg } } },
    deps: { greenfield: new GreenfieldClient(cfg) },
  });
  return cfg;
}

afterEach(async () => {
  await gf?.close();
});

const hook = (body: string, signature?: string) => {
  const t = request(h.app).post('/webhooks/btcpay').set('Content-Type', 'application/json');
  return (signature === undefined ? t : t.set('BTCPay-Sig', signature)).send(body);
};

describe('crypto top-up, rule set B (credits)', () => {
  test('the credit page offers crypto; a top-up creates a Greenfield invoice and redirects to its checkout', async () => {
    await start('B', 1); // 1 credit per cent
    const c = await signedUp(h, 'sats@example.com');
    const page = await c.get('/credit');
    expect(page.text).toContain('Pay in crypto');
    // The browser may follow the form's redirect to the checkout: form-action names BTCPay Server's origin (and
    // still 'self'); without it Chromium refused the redirect (found by test/e2e/dashboard/receipts.test.ts).
    expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${gf.url};`);
    // The price of a credit in crypto is shown (issue 15 item 3: prices everywhere).
    expect(page.text).toMatch(/data-price="crypto-credit">\s*<strong>€0\.01<\/strong>\s*per credit/);
    const topUpId = /name="topUpId" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const r = await c.form('/credit/top-up', { amount: '500', topUpId, method: 'crypto' });
    expect(r.status).toBe(303);
    const [id, invoice] = [...gf.invoices.entries()][0] ?? [];
    expect(r.headers.location).toBe(`${gf.url}/i/${id}`);
    const account = await h.store.findAccountByEmail('sats@example.com');
    expect(gf.requests[0]).toMatchObject({
      method: 'POST',
      url: `/api/v1/stores/${STAND_IN_STORE}/invoices`,
      authorization: `token ${STAND_IN_API_KEY}`,
    });
    expect(invoice).toMatchObject({
      amount: '5.00',
      currency: 'EUR',
      metadata: { accountId: account?.id, units: '500', orderId: `topup:${account?.id}:${topUpId}` },
      checkout: { redirectURL: 'http://dash.test/credit?topup=pending' },
    });
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(0); // credited by the webhook only
  });

  test('InvoiceSettled credits exactly once per invoice, whatever the deliveries; bad signatures credit nothing', async () => {
    await start('B', 1);
    const c = await signedUp(h, 'sats@example.com');
    const account = await h.store.findAccountByEmail('sats@example.com');
    const started = await c.api('post', '/api/credit/top-ups', {
      amount: 300,
      idempotencyKey: 'crypto-0001',
      method: 'crypto',
    });
    expect(started.status).toBe(202);
    const id = [...gf.invoices.keys()][0] ?? '';
    expect(started.body).toEqual({ status: 'pending', paymentUrl: `${gf.url}/i/${id}` });

    // Not yet settled at Greenfield (an early or forged-order event): nothing.
    gf.set(id, { status: 'Processing' });
    const early = delivery('InvoiceSettled', id);
    expect((await hook(early, sign(early))).body).toEqual({ received: true, credited: false });

    gf.set(id, { status: 'Settled', additionalStatus: 'None' });
    const body = delivery('InvoiceSettled', id);
    expect((await hook(body, undefined)).status).toBe(400);
    expect((await hook(body, sign(body, 'someone-else'))).status).toBe(400);
    expect((await hook(body, 'sha256=zz')).status).toBe(400);
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(0);

    const first = await hook(body, sign(body));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, credited: true });
    // The same delivery again, a redelivery, and events of other types arriving late: no second credit.
    expect((await hook(body, sign(body))).body).toEqual({ received: true, credited: false });
    const again = delivery('InvoiceSettled', id, true);
    expect((await hook(again, sign(again))).body).toEqual({ received: true, credited: false });
    const late = delivery('InvoiceProcessing', id);
    expect((await hook(late, sign(late))).body).toEqual({ received: true, ignored: 'InvoiceProcessing' });
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(300);
    const ledger = await h.store.ledger(account?.id ?? '', 10);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ kind: 'topup', amount: 300, ref: `btcpay:${id}` });
    // One receipt (D31), crypto, of the credits and the money paid for them: the deliveries took no other number.
    const receipts = await h.store.listReceipts(account?.id ?? '', 10);
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({
      kind: 'topup',
      method: 'crypto',
      amount: 300,
      currency: 'credits',
      paid: { minor: 300, currency: 'EUR' },
      sourceId: ledger[0]?.id,
    });
  });

  test('expired, invalid, tampered or unknown invoices credit nothing; Greenfield down answers 503', async () => {
    await start('B', 1);
    const c = await signedUp(h, 'sats@example.com');
    const account = await h.store.findAccountByEmail('sats@example.com');
    for (let i = 0; i < 3; i++) {
      await c.api('post', '/api/credit/top-ups', {
        amount: 200,
        idempotencyKey: `crypto-x${i}00`,
        method: 'crypto',
      });
    }
    const [expired, invalid, tampered] = [...gf.invoices.keys()];
    gf.set(expired ?? '', { status: 'Expired' });
    gf.set(invalid ?? '', { status: 'Invalid' });
    // Settled, but its metadata claims more units than the amount paid for.
    gf.set(tampered ?? '', { status: 'Settled', metadata: { accountId: account?.id, units: '20000' } });
    for (const id of [expired, invalid, tampered, 'NoSuchInvoice123']) {
      const body = delivery('InvoiceSettled', id ?? '');
      expect((await hook(body, sign(body))).body).toEqual({ received: true, credited: false });
    }
    const expiredEvent = delivery('InvoiceExpired', expired ?? '');
    expect((await hook(expiredEvent, sign(expiredEvent))).body).toMatchObject({ ignored: 'InvoiceExpired' });
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(0);

    gf.set(expired ?? '', { status: 'Settled' });
    await gf.close();
    const body = delivery('InvoiceSettled', expired ?? '');
    const down = await hook(body, sign(body));
    expect(down.status).toBe(503);
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(0);
  });

  test('an invoice whose amount Greenfield writes as "5", "5.0" or "5.000" for 5.00 is credited once', async () => {
    await start('B', 1);
    const c = await signedUp(h, 'scale@example.com');
    const account = await h.store.findAccountByEmail('scale@example.com');
    const forms = ['5', '5.0', '5.000'];
    for (const [i] of forms.entries()) {
      await c.api('post', '/api/credit/top-ups', {
        amount: 500,
        idempotencyKey: `crypto-s${i}00`,
        method: 'crypto',
      });
    }
    const ids = [...gf.invoices.keys()];
    for (const [i, amount] of forms.entries()) {
      gf.set(ids[i] ?? '', { status: 'Settled', amount });
      const body = delivery('InvoiceSettled', ids[i] ?? '');
      expect((await hook(body, sign(body))).body).toEqual({ received: true, credited: true });
      expect((await hook(body, sign(body))).body).toEqual({ received: true, credited: false });
    }
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(1500);
  });

  test('a method that is neither card nor crypto is refused naming the field', async () => {
    await start('B', 1);
    const c = await signedUp(h, 'sats@example.com');
    const r = await c.api('post', '/api/credit/top-ups', {
      amount: 300,
      idempotencyKey: 'crypto-0002',
      method: 'bitcoin',
    });
    expect(r.status).toBe(400);
    expect(r.body.field).toBe('method');
    expect(gf.requests).toHaveLength(0);
  });
});

describe('crypto top-up, rule set A (EUR units)', () => {
  test('25.50 EUR becomes an invoice of "25.50" EUR and credits 255,000 units once settled', async () => {
    const cfg = await start('A', 100);
    const c = await signedUp(h, 'eur@example.com');
    const account = await h.store.findAccountByEmail('eur@example.com');
    const started = await c.api('post', '/api/credit/top-ups', {
      amount: '25.50',
      idempotencyKey: 'crypto-a001',
      method: 'crypto',
    });
    expect(started.status).toBe(202);
    const [id, invoice] = [...gf.invoices.entries()][0] ?? [];
    expect(invoice).toMatchObject({ amount: '25.50', currency: 'EUR', metadata: { units: '255000' } });
    expect(invoiceAmount(cfg, 255_000)).toBe('25.50');
    gf.set(id ?? '', { status: 'Settled' });
    const body = delivery('InvoiceSettled', id ?? '');
    expect((await hook(body, sign(body))).body).toEqual({ received: true, credited: true });
    expect((await h.store.getAccount(account?.id ?? ''))?.balance).toBe(255_000);
  });

  test('crypto amounts below 1.00 or not in whole cents are refused before BTCPay is called', async () => {
    await start('A', 100);
    const c = await signedUp(h, 'eur@example.com');
    for (const amount of ['0.99', '10.005']) {
      const r = await c.api('post', '/api/credit/top-ups', {
        amount,
        idempotencyKey: 'crypto-a002',
        method: 'crypto',
      });
      expect(r.status).toBe(400);
      expect(r.body.field).toBe('amount');
    }
    expect(gf.requests).toHaveLength(0);
  });

  test('without a crypto section the page offers no crypto and the API refuses method crypto', async () => {
    h = await dash('A');
    gf = new GreenfieldStandIn();
    const c = await signedUp(h, 'nocrypto@example.com');
    expect((await c.get('/credit')).text).not.toContain('Pay in crypto');
    const r = await c.api('post', '/api/credit/top-ups', {
      amount: '5',
      idempotencyKey: 'crypto-a003',
      method: 'crypto',
    });
    expect(r.status).toBe(400);
    expect(r.body.field).toBe('method');
    // No webhook route either: the POST meets the CSRF check of every other form and is refused.
    expect((await request(h.app).post('/webhooks/btcpay').send('{}')).status).toBe(403);
  });
});

test('BTCPay-Sig verification: sha256= prefix, exact bytes, constant length', () => {
  const body = Buffer.from('{"type":"InvoiceSettled"}');
  expect(validBtcpaySignature(body, sign(body.toString()), STAND_IN_WEBHOOK_SECRET)).toBe(true);
  expect(
    validBtcpaySignature(Buffer.from(`${body.toString()} `), sign(body.toString()), STAND_IN_WEBHOOK_SECRET),
  ).toBe(false);
  expect(validBtcpaySignature(body, sign(body.toString()).slice(7), STAND_IN_WEBHOOK_SECRET)).toBe(false);
  expect(validBtcpaySignature(body, ['a'], STAND_IN_WEBHOOK_SECRET)).toBe(false);
});

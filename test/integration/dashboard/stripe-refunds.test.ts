/**
 * Refunds and disputes of card top-ups (D16, D31): Stripe's signed events, built with the library's
 * generateTestHeaderString, in the shapes of Stripe's API reference (Event, Checkout Session, Charge with
 * `amount_refunded`, Dispute with `status`). A refund takes its amount back from the balance, never below zero (the
 * rest is owed), with one ledger row and a credit note, once per event; a dispute moves credit only when lost.
 */
import Stripe from 'stripe';
import request from 'supertest';
import type { StripeConfig } from '../../../dashboard/config';
import { stripeProvider } from '../../../dashboard/payments/stripe-provider';
import { ORIGIN, signedUp, type Harness, useDashboards } from './fixture';

const CFG: StripeConfig = {
  secretKey: 'sk_test_offline_never_used',
  webhookSecret: 'whsec_test_secret_for_refunds',
  priceCurrency: 'eur',
  unitsPerMinorUnit: 100,
};
const stripe = new Stripe(CFG.secretKey);
let seq = 0;

const event = (type: string, object: Record<string, unknown>, id = `evt_${++seq}`): string =>
  JSON.stringify({
    id,
    object: 'event',
    api_version: '2024-06-20',
    created: 1764000000,
    type,
    data: { object },
  });

/** A paid Checkout Session of `minor` cents for the account, paid by PaymentIntent `pi`. */
const completed = (accountId: string, minor: number, pi: string): string =>
  event('checkout.session.completed', {
    id: `cs_test_${pi}`,
    object: 'checkout.session',
    mode: 'payment',
    payment_status: 'paid',
    status: 'complete',
    amount_total: minor,
    currency: 'eur',
    payment_intent: pi,
    metadata: { accountId, units: String(minor * CFG.unitsPerMinorUnit) },
  });

/** The Charge of `pi` after refunds totalling `refunded` cents. */
const refunded = (pi: string, amount: number, refundedMinor: number, id?: string): string =>
  event(
    'charge.refunded',
    {
      id: `ch_${pi}`,
      object: 'charge',
      amount,
      amount_captured: amount,
      amount_refunded: refundedMinor,
      currency: 'eur',
      captured: true,
      paid: true,
      payment_intent: pi,
      refunded: refundedMinor === amount,
      status: 'succeeded',
    },
    id,
  );

const dispute = (type: string, pi: string, amount: number, status: string): string =>
  event(type, {
    id: `dp_${pi}`,
    object: 'dispute',
    amount,
    charge: `ch_${pi}`,
    currency: 'eur',
    payment_intent: pi,
    reason: 'fraudulent',
    status,
  });

let h: Harness;
const dash = useDashboards();

const post = (body: string) =>
  request(h.app)
    .post('/webhooks/stripe')
    .set('Content-Type', 'application/json')
    .set(
      'Stripe-Signature',
      stripe.webhooks.generateTestHeaderString({ payload: body, secret: CFG.webhookSecret }),
    )
    .send(body);

async function paidAccount(email: string, minor: number, pi: string): Promise<string> {
  await signedUp(h, email);
  const id = (await h.store.findAccountByEmail(email))?.id ?? '';
  expect((await post(completed(id, minor, pi))).body).toEqual({ received: true, credited: true });
  return id;
}

const balance = async (id: string) => (await h.store.getAccount(id))?.balance;

beforeEach(async () => {
  h = await dash('A', {
    config: { payments: { provider: 'stripe', stripe: CFG } },
    deps: {
      payments: stripeProvider(CFG, ORIGIN, {
        checkout: {
          sessions: { create: () => Promise.resolve({ id: 'cs', url: 'https://checkout.stripe.com/x' }) },
        },
      }),
    },
  });
});

test('partial and full refunds take their amounts back once each; the receipt gets credit notes', async () => {
  const id = await paidAccount('refund@example.com', 2550, 'pi_full');
  const [topUp] = await h.store.listReceipts(id, 10);
  expect(topUp).toMatchObject({ kind: 'topup', paymentRef: 'pi_full', refunded: 0 });

  const partial = refunded('pi_full', 2550, 1000);
  expect((await post(partial)).body).toEqual({ received: true, refunded: true });
  expect(await balance(id)).toBe(155_000);
  // The same event again (Stripe's redelivery), also several at once: nothing more.
  const again = await Promise.all([post(partial), post(partial), post(partial)]);
  for (const r of again) expect(r.body).toEqual({ received: true, refunded: false });
  expect(await balance(id)).toBe(155_000);

  expect((await post(refunded('pi_full', 2550, 2550))).body).toEqual({ received: true, refunded: true });
  // An older event of the same charge arriving late: its total is already applied.
  expect((await post(refunded('pi_full', 2550, 1000))).body).toEqual({ received: true, refunded: false });
  expect(await balance(id)).toBe(0);

  const ledger = await h.store.ledger(id, 10);
  expect(ledger.map((e) => [e.kind, e.amount])).toEqual([
    ['adjustment', -155_000],
    ['adjustment', -100_000],
    ['topup', 255_000],
  ]);
  const receipts = await h.store.listReceipts(id, 10);
  expect(receipts.map((r) => [r.kind, r.amount, r.paid?.minor, r.creditOf])).toEqual([
    ['credit_note', 155_000, 1550, topUp?.number],
    ['credit_note', 100_000, 1000, topUp?.number],
    ['topup', 255_000, 2550, null],
  ]);
  expect(await h.store.getReceipt(id, topUp?.number ?? '')).toMatchObject({ refunded: 255_000, owed: 0 });
});

test('a refund of spent credit takes the balance to zero, not below, and records the rest as owed', async () => {
  const id = await paidAccount('spent@example.com', 6000, 'pi_spent');
  // 50 EUR of the 60 bought an Unlimited package (D17).
  await h.store.buyPackage(
    id,
    500_000,
    {
      accountId: id,
      hash: 'hash_pkg_spent',
      prefix: 'gk_pkg',
      kind: 'unlimited',
      packageUntil: h.clock.now() + 1e9,
    },
    h.clock.now(),
  );
  expect((await post(refunded('pi_spent', 6000, 6000))).body).toEqual({ received: true, refunded: true });
  expect(await balance(id)).toBe(0);
  const [note, topUp] = await h.store.listReceipts(id, 10);
  expect(note).toMatchObject({ kind: 'credit_note', amount: 600_000, owed: 500_000 });
  expect(topUp).toMatchObject({ kind: 'topup', refunded: 600_000, owed: 500_000 });
  expect((await h.store.ledger(id, 10)).filter((e) => e.kind === 'adjustment').map((e) => e.amount)).toEqual([
    -100_000,
  ]);
  expect(h.logs.text).toContain('refund exceeds the balance; the rest is owed');
});

test('a dispute moves credit only when lost; an opened or won dispute changes nothing', async () => {
  const id = await paidAccount('dispute@example.com', 2000, 'pi_dp');
  expect((await post(dispute('charge.dispute.created', 'pi_dp', 2000, 'needs_response'))).body).toEqual({
    received: true,
    refunded: false,
  });
  expect((await post(dispute('charge.dispute.closed', 'pi_dp', 2000, 'won'))).body).toEqual({
    received: true,
    refunded: false,
  });
  expect(await balance(id)).toBe(200_000);
  const lost = dispute('charge.dispute.closed', 'pi_dp', 2000, 'lost');
  expect((await post(lost)).body).toEqual({ received: true, refunded: true });
  expect((await post(lost)).body).toEqual({ received: true, refunded: false });
  // A refund of the same payment after the lost dispute finds nothing left of the top-up.
  expect((await post(refunded('pi_dp', 2000, 2000))).body).toEqual({ received: true, refunded: false });
  expect(await balance(id)).toBe(0);
  expect(await h.store.ledger(id, 10)).toHaveLength(2);
});

test('a refund of a payment no top-up names is answered and changes nothing; a bad signature is refused', async () => {
  const id = await paidAccount('other@example.com', 1000, 'pi_mine');
  expect((await post(refunded('pi_someone_else', 1000, 1000))).body).toEqual({
    received: true,
    refunded: false,
  });
  expect(h.logs.text).toContain('Stripe refund of an unknown payment');
  const body = refunded('pi_mine', 1000, 1000);
  const forged = await request(h.app)
    .post('/webhooks/stripe')
    .set('Content-Type', 'application/json')
    .set(
      'Stripe-Signature',
      stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_other' }),
    )
    .send(body);
  expect(forged.status).toBe(400);
  expect(await balance(id)).toBe(100_000);
});

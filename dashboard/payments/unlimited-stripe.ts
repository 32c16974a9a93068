/**
 * The Unlimited plan by card (rule set B): a Stripe Checkout Session in payment mode for one period (not a Stripe
 * subscription: the customer renews from the dashboard, and an unrenewed plan simply ends), and the handling of its
 * paid session in the Stripe webhook (webhook.ts hands plan sessions here). Stripe's own client, or an injected one in
 * tests (the same CheckoutClient shape as top-ups).
 */
import type { Response } from 'express';
import type pino from 'pino';
import Stripe from 'stripe';
import type { AccountsService } from '../../gateway/accounts/service';
import type { StripeConfig } from '../config';
import type { CheckoutClient } from './stripe-provider';
import { extendOnce, paidPlan, planMetadata, type PlanOffer } from './unlimited';

/** The Checkout Session parameters of one plan period (exported for tests). */
export function planCheckoutParams(
  publicUrl: string,
  req: { accountId: string; email: string; offer: PlanOffer },
): Stripe.Checkout.SessionCreateParams {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    mode: 'payment',
    customer_email: req.email,
    client_reference_id: req.accountId,
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: req.offer.currency.toLowerCase(),
          unit_amount: req.offer.minor,
          product_data: { name: `Unlimited plan, ${req.offer.days} days` },
        },
      },
    ],
    metadata: planMetadata(req.accountId, req.offer),
    success_url: `${base}/credit?plan=pending`,
    cancel_url: `${base}/credit?plan=cancelled`,
  };
}

/** Start a card payment of one period; resolves to Stripe Checkout's page. `formId` makes a double submit one session. */
export async function startPlanCheckout(
  client: CheckoutClient,
  publicUrl: string,
  req: { accountId: string; email: string; offer: PlanOffer; formId: string },
): Promise<string> {
  const session = await client.checkout.sessions.create(planCheckoutParams(publicUrl, req), {
    idempotencyKey: `plan:${req.accountId}:${req.formId}`,
  });
  if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
  return session.url;
}

/** The Checkout client of plan payments: Stripe's library over the secret key. */
export function planCheckoutClient(cfg: StripeConfig): CheckoutClient {
  return new Stripe(cfg.secretKey);
}

/** A completed plan session from the webhook: record its period once, by session id, or say why not. */
export async function planSessionPaid(
  res: Response,
  deps: { accounts: Pick<AccountsService, 'buyPlan'>; logger: pino.Logger },
  session: Stripe.Checkout.Session,
): Promise<void> {
  const plan =
    session.payment_status === 'paid'
      ? paidPlan(session.metadata, { minor: session.amount_total, currency: session.currency ?? '' })
      : ({ ok: false, reason: `payment ${session.payment_status}` } as const);
  if (!plan.ok) {
    deps.logger.warn(
      { session: session.id, reason: plan.reason },
      'dashboard: Stripe plan session not applied',
    );
    res.json({ received: true, extended: false });
    return;
  }
  const pi = session.payment_intent;
  const paymentRef = typeof pi === 'string' ? pi : (pi?.id ?? null);
  await extendOnce(
    res,
    deps,
    { ...plan, ref: `stripe:${session.id}`, payment: { method: 'card', paymentRef } },
    { session: session.id },
  );
}

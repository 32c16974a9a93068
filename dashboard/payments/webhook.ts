/**
 * POST /webhooks/stripe: verify the signature, then credit a paid Checkout Session exactly once (by its id), its
 * receipt naming the PaymentIntent; refunds and lost disputes of that payment take the credit back
 * (stripe-refunds.ts).
 */
import express, { type Router } from 'express';
import type pino from 'pino';
import Stripe from 'stripe';
import type { AccountsService } from '../../gateway/accounts/service';
import type { StripeConfig } from '../config';
import type { AutoTopUps } from './auto-topup';
import { autoTopUpEvent } from './auto-topup-webhook';
import { creditOnce } from './credit-once';
import { handleRefundEvent, REFUND_EVENTS } from './stripe-refunds';
import { isPlanMetadata } from './unlimited';
import { planSessionPaid } from './unlimited-stripe';

/** The credit a completed session carries, or null when it is not a paid top-up of ours. */
function topUpOf(
  session: Stripe.Checkout.Session,
  cfg: StripeConfig,
): { accountId: string; units: number } | null {
  if (session.payment_status !== 'paid') return null;
  const accountId = session.metadata?.['accountId'];
  const units = Number(session.metadata?.['units']);
  if (!accountId || !Number.isSafeInteger(units) || units <= 0) return null;
  // The amount actually paid decides; metadata only names the unit count we asked for.
  if (session.amount_total !== units / cfg.unitsPerMinorUnit) return null;
  if (session.currency !== cfg.priceCurrency) return null;
  return { accountId, units };
}

/** The PaymentIntent that paid a session (its refunds and disputes name it), or null. */
function paymentIntentOf(session: Stripe.Checkout.Session): string | null {
  const pi = session.payment_intent;
  return typeof pi === 'string' ? pi : (pi?.id ?? null);
}

/** Register the webhook route (raw body: the signature covers the exact bytes). */
export function stripeWebhook(
  router: Router,
  deps: {
    accounts: Pick<AccountsService, 'topUp' | 'refundTopUp' | 'buyPlan'>;
    logger: pino.Logger;
    cfg: StripeConfig;
    /** Auto top-up's events (saved cards, off-session charges); absent or null: they are acknowledged only. */
    autoTopUp?: AutoTopUps | null;
  },
): void {
  const { logger, cfg } = deps;
  const stripe = new Stripe(cfg.secretKey);
  router.post('/webhooks/stripe', express.raw({ type: '*/*', limit: '256kb' }), async (req, res) => {
    const signature = req.headers['stripe-signature'];
    let event: Stripe.Event;
    try {
      if (typeof signature !== 'string' || !Buffer.isBuffer(req.body)) throw new Error('no signature');
      event = stripe.webhooks.constructEvent(req.body, signature, cfg.webhookSecret);
    } catch {
      res.status(400).json({ error: 'invalid signature' });
      return;
    }
    const auto = await autoTopUpEvent(event, deps.autoTopUp);
    if (auto) {
      res.json(auto);
      return;
    }
    if (REFUND_EVENTS.includes(event.type)) {
      res.json(await handleRefundEvent(event, deps));
      return;
    }
    if (
      event.type !== 'checkout.session.completed' &&
      event.type !== 'checkout.session.async_payment_succeeded'
    ) {
      res.json({ received: true, ignored: event.type });
      return;
    }
    const session = event.data.object;
    // Rule set B's Unlimited plan (unlimited-stripe.ts): a period, not credit.
    if (isPlanMetadata(session.metadata)) return void (await planSessionPaid(res, deps, session));
    const topUp = topUpOf(session, cfg);
    if (!topUp) {
      logger.warn({ session: session.id }, 'dashboard: Stripe session not credited (unpaid or not a top-up)');
      res.json({ received: true, credited: false });
      return;
    }
    await creditOnce(
      res,
      deps,
      {
        ...topUp,
        ref: `stripe:${session.id}`,
        payment: {
          method: 'card',
          paid: { minor: session.amount_total ?? 0, currency: cfg.priceCurrency.toUpperCase() },
          paymentRef: paymentIntentOf(session),
        },
      },
      { fields: { session: session.id }, message: 'dashboard: top-up' },
    );
  });
}

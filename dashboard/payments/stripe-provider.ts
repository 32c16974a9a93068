/**
 * Card top-ups through Stripe Checkout: a Checkout Session per top-up; the account is credited by the signed
 * `checkout.session.completed` webhook (webhook.ts), never by the browser's return.
 */
import Stripe from 'stripe';
import type { StripeConfig } from '../config';
import { invalidField } from '../errors';
import type { PaymentProvider } from './types';

/** The part of the Stripe client used here (so tests can inject one and never reach the network). */
export interface CheckoutClient {
  checkout: {
    sessions: {
      create(
        params: Stripe.Checkout.SessionCreateParams,
        options?: Stripe.RequestOptions,
      ): Promise<{ url: string | null; id: string }>;
    };
  };
}

/** Smallest card charge Stripe accepts in most currencies: 0.50 in major units. */
const MIN_MINOR = 50;

/** The Checkout Session parameters of a top-up (exported for tests). */
export function checkoutParams(
  cfg: StripeConfig,
  publicUrl: string,
  req: { accountId: string; email: string; units: number },
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
          currency: cfg.priceCurrency,
          unit_amount: req.units / cfg.unitsPerMinorUnit,
          product_data: { name: 'Geocoding credit top-up' },
        },
      },
    ],
    metadata: { accountId: req.accountId, units: String(req.units) },
    success_url: `${base}/credit?topup=pending`,
    cancel_url: `${base}/credit?topup=cancelled`,
  };
}

/** The Stripe provider; `client` defaults to the real library client built from the secret key. */
export function stripeProvider(
  cfg: StripeConfig,
  publicUrl: string,
  client?: CheckoutClient,
): PaymentProvider {
  const stripe: CheckoutClient = client ?? new Stripe(cfg.secretKey);
  return {
    name: 'stripe',
    checkAmount(units) {
      const minor = units / cfg.unitsPerMinorUnit;
      if (!Number.isInteger(minor)) {
        throw invalidField('amount', 'Card payments need an amount in whole cents');
      }
      if (minor < MIN_MINOR) throw invalidField('amount', 'Card payments start at 0.50');
    },
    async startTopUp(req) {
      const session = await stripe.checkout.sessions.create(checkoutParams(cfg, publicUrl, req), {
        idempotencyKey: `topup:${req.accountId}:${req.idempotencyKey}`,
      });
      if (!session.url) throw new Error('Stripe returned a Checkout Session without a URL');
      return { kind: 'redirect', url: session.url };
    },
  };
}

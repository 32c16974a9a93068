/**
 * The pages' Content-Security-Policy has `form-action 'self'`, and Chromium applies form-action to the redirects
 * that follow a form submission too: the top-up form's 303 to the payment page (BTCPay Server's checkout, Stripe
 * Checkout) was refused by the browser, so no customer could reach the payment page (found by the browser walk of
 * the crypto top-up). This adds the configured payment origins to form-action, and nothing else.
 */
import type { RequestHandler } from 'express';
import type { DashboardConfig } from '../config';

/** Stripe Checkout's pages (the Session's url). */
const STRIPE_CHECKOUT = 'https://checkout.stripe.com';

/** The origins a top-up form may be redirected to under this config (none without payments). */
export function paymentOrigins(config: Pick<DashboardConfig, 'payments'>): string[] {
  const origins: string[] = [];
  if (config.payments?.provider === 'stripe' && config.payments.stripe) origins.push(STRIPE_CHECKOUT);
  const btcpay = config.payments?.crypto?.btcpay;
  if (btcpay) origins.push(new URL(btcpay.url).origin);
  return origins;
}

/** Widen the CSP's form-action (set by the security headers before it) with the payment origins; a no-op without. */
export function paymentFormAction(config: Pick<DashboardConfig, 'payments'>): RequestHandler {
  const origins = paymentOrigins(config);
  const extra = origins.length ? ` ${origins.join(' ')}` : '';
  return (_req, res, next) => {
    const csp = res.getHeader('Content-Security-Policy');
    if (extra && typeof csp === 'string') {
      res.setHeader(
        'Content-Security-Policy',
        csp.replace(/form-action 'self'/, `form-action 'self'${extra}`),
      );
    }
    next();
  };
}

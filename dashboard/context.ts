/** Everything the routes share, built once per app from the deps. */
import { AccountsService } from '../gateway/accounts/service';
import { brandOf, type Brand } from './brand';
import type { DashboardDeps } from './deps';
import { AccountLinks } from './account-links';
import { MagicLinks } from './magic-link';
import { createMailer, type Mailer } from './mailer';
import { MailQueue } from './mail-queue';
import { autoTopUpOf } from './payments/auto-topup-setup';
import type { AutoTopUps } from './payments/auto-topup';
import { btcpayProvider } from './payments/btcpay';
import { noPayments } from './payments/none-provider';
import { stripeProvider } from './payments/stripe-provider';
import { testProvider } from './payments/test-provider';
import type { PaymentProvider } from './payments/types';
import { Secrets } from './session';
import { cookieNames } from './cookies';
import { mainOnly, type Deployment } from './deployment';
import { invoicePolicy } from './invoice-config';

/** Sign-in attempts allowed per window (dashboard/throttle.ts). */
export { SIGNIN_LIMITS } from './throttle';

export interface AppContext extends DashboardDeps {
  /** The shared account rules (gateway/accounts). */
  accounts: AccountsService;
  secrets: Secrets;
  links: MagicLinks;
  /** One-time links of password resets and e-mail changes (issue 15 item 1). */
  accountLinks: AccountLinks;
  mailer: Mailer;
  /** Every e-mail a request sends goes through it: queued, answered at once, retried (no enumeration by time). */
  mailQueue: MailQueue;
  payments: PaymentProvider;
  /** Crypto top-ups (BTCPay Server, D32), beside the card flow; null when not configured. */
  cryptoPayments: PaymentProvider | null;
  /** Auto top-up by saved card (Stripe only); null when payments are not Stripe or it is turned off. */
  autoTopUp: AutoTopUps | null;
  /** Product name and footer of every page (config, issue 15 item 7). */
  brand: Brand;
  /** The API's public addresses (samples, the reference, the guides). */
  deployment: Deployment;
  /** The public origin ("https://dash.example.com") that state-changing requests must come from. */
  origin: string;
  /**
   * Whether a mailed link can reach the customer (SMTP configured, a development log, or an injected mailer that does
   * not say `reaches: false`). Without
   * it, rule set A's sign-ups are verified at creation: a verification link could never arrive (issue 15 item 1).
   */
  mailReaches: boolean;
}

/** Build the shared context. */
export function createContext(deps: DashboardDeps): AppContext {
  const { config, clock } = deps;
  if (config.sessionSecret.length < 32)
    throw new Error('dashboard.sessionSecret needs at least 32 characters');
  const secrets = new Secrets(config.sessionSecret, cookieNames(config.publicUrl));
  const stripe = config.payments?.stripe;
  const notices = deps.notifications;
  const accounts =
    deps.accounts ??
    new AccountsService({ ...deps, ...(notices ? { onKeyRevoked: (k) => notices.keyRevoked(k) } : {}) });
  const payments =
    deps.payments ??
    (!config.payments
      ? noPayments()
      : config.payments.provider === 'stripe' && stripe
        ? stripeProvider(stripe, config.publicUrl)
        : testProvider(accounts));
  // Receipts issued from now on are invoices when the config names a seller (a reload sets it again, app.ts).
  accounts.invoicing = invoicePolicy(config, deps.rules);
  const mailer = deps.mailer ?? createMailer(config, deps.logger);
  const btcpay = config.payments?.crypto?.btcpay;
  const cryptoPayments = btcpay ? btcpayProvider(btcpay, config.publicUrl, deps.greenfield) : null;
  const mailQueue = new MailQueue(deps.logger, deps.mailRetryDelaysMs);
  return {
    ...deps,
    autoTopUp: autoTopUpOf(deps, accounts, mailer, mailQueue),
    accounts,
    secrets,
    links: new MagicLinks(secrets, clock, deps.store),
    accountLinks: new AccountLinks(secrets, clock, deps.store),
    mailer,
    mailQueue,
    payments,
    cryptoPayments,
    origin: new URL(config.publicUrl).origin,
    // The composition root always passes a mailer: it says itself whether its mail can arrive.
    mailReaches: mailer.reaches !== false,
    brand: brandOf(config),
    deployment: deps.deployment ?? mainOnly(new URL(config.publicUrl).origin),
  };
}

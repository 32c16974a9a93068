/** What the dashboard needs from its host (the gateway). */
import type pino from 'pino';
import type { AccountsService } from '../gateway/accounts/service';
import type { Clock } from '../gateway/core/clock';
import type { Cidr } from '../gateway/net/address';
import type { ForwardedHeader } from '../gateway/net/client-address';
import type { RuleSet } from '../gateway/policy/ruleset';
import type { Notifications } from '../gateway/notify';
import type {
  AccountStore,
  AutoTopUpStore,
  BillingStore,
  ConsoleStore,
  KeyStore,
  MarkStore,
  NotificationStore,
  SecurityStore,
} from '../gateway/store/ports';
import type { DashboardConfig } from './config';
import type { AutoTopUpStripe } from './payments/auto-topup';
import type { GreenfieldClient } from './payments/btcpay';
import type { CheckoutClient } from './payments/stripe-provider';
import type { PaymentProvider } from './payments/types';
import type { Mailer } from './mailer';
import type { Deployment } from './deployment';

/** Dependencies of createDashboardApp. */
export interface DashboardDeps {
  store: AccountStore &
    KeyStore &
    BillingStore &
    NotificationStore &
    MarkStore &
    AutoTopUpStore &
    SecurityStore &
    Pick<ConsoleStore, 'recentRefusals'>;
  rules: RuleSet;
  /** Server-side secret of key hashes (D14). */
  pepper: string;
  clock: Clock;
  logger: pino.Logger;
  config: DashboardConfig;
  /** The gateway's trusted proxies (D3): the client address for sign-in limits comes from X-Forwarded-For only behind them. */
  trustProxy?: readonly Cidr[];
  /** The one header those proxies write (D3a; default x-forwarded-for). */
  trustProxyHeader?: ForwardedHeader;
  /** Overrides for tests: a payment provider (e.g. Stripe with an injected client) or a mailer. */
  payments?: PaymentProvider;
  /** The Stripe Checkout client of Unlimited plan payments (tests: one that never reaches the network). */
  planCheckout?: CheckoutClient;
  /** The Greenfield client of crypto top-ups and their webhook (tests: one over a local stand-in's fetch). */
  greenfield?: GreenfieldClient;
  /** The Stripe client of auto top-up (tests: the library pointed at a replay server); built from the config if absent. */
  stripe?: AutoTopUpStripe;
  mailer?: Mailer;
  /** Waits between attempts of a failed e-mail (default MAIL_RETRY_DELAYS_MS; tests shorten them). */
  mailRetryDelaysMs?: readonly number[];
  /** The shared account rules; built from store, rules, clock and pepper when not given. */
  accounts?: AccountsService;
  /**
   * The API's public addresses (config `publicApiUrl` and the hosts' `publicUrl`): samples, the API reference, the
   * migration guides. Absent: the main host only, at the dashboard's own origin (tests).
   */
  deployment?: Deployment;
  /** Notifications (D30) when configured: the Notifications page, test events, revocation events. */
  notifications?: Notifications;
}

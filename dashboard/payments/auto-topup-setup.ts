/** Building auto top-up for a dashboard: only with Stripe card payments and `stripe.autoTopUp.enabled`. */
import Stripe from 'stripe';
import type { AccountsService } from '../../gateway/accounts/service';
import { emailOf } from '../../gateway/notify/events';
import { AUTO_TOPUP_DEFAULTS } from '../config';
import type { DashboardDeps } from '../deps';
import type { MailQueue } from '../mail-queue';
import type { Mailer } from '../mailer';
import { AutoTopUps } from './auto-topup';
import type { AutoTopUpNotice } from './auto-topup-notice';

/** Stripe's calls wait at most this long (one retry): well within the time after which a pending attempt is retaken. */
const STRIPE_TIMEOUT_MS = 20_000;

/**
 * Auto top-up of this dashboard, or null. The customer is told through the notifications (D30: e-mail when alerts are
 * on, and webhooks) when they are configured, else by the dashboard's own mail.
 */
export function autoTopUpOf(
  deps: DashboardDeps,
  accounts: AccountsService,
  mailer: Mailer,
  mailQueue: MailQueue,
): AutoTopUps | null {
  const payments = deps.config.payments;
  const cfg = payments?.stripe;
  if (payments?.provider !== 'stripe' || !cfg) return null;
  const options = { ...AUTO_TOPUP_DEFAULTS, ...cfg.autoTopUp };
  if (!options.enabled) return null;
  const stripe =
    deps.stripe ?? new Stripe(cfg.secretKey, { timeout: STRIPE_TIMEOUT_MS, maxNetworkRetries: 1 });
  const notices = deps.notifications;
  const notify = async (n: AutoTopUpNotice): Promise<void> => {
    if (notices) {
      await notices.notifier.record(n);
      return;
    }
    const account = await deps.store.getAccount(n.accountId);
    if (!account || account.status === 'deleted') return;
    const { subject, text } = emailOf(n.type, n.data);
    mailQueue.enqueue({ purpose: n.type, send: () => mailer.sendNotice(account.email, subject, text) });
  };
  return new AutoTopUps({
    store: deps.store,
    accounts,
    stripe,
    cfg,
    options,
    rules: deps.rules,
    clock: deps.clock,
    logger: deps.logger,
    publicUrl: deps.config.publicUrl,
    notify,
  });
}

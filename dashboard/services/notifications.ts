/** Notification settings and webhook endpoints of the signed-in account (D30): validation and the store calls. */
import { formatMoney, parseMoney } from '../../gateway/policy/ruleset';
import { newWebhookSecret, webhookUrlProblem } from '../../gateway/notify/webhook';
import type { AppContext } from '../context';
import { DashboardError } from '../errors';
import type { NotificationsView } from '../views/notifications';

/** Log lines shown on the page. */
const LOG_LINES = 30;

/** The notifications of this dashboard, or 404 when the config has none. */
export function notificationsOf(ctx: AppContext): NonNullable<AppContext['notifications']> {
  if (!ctx.notifications) throw new DashboardError('not_found', 'No such page');
  return ctx.notifications;
}

/** The threshold as the customer types it: "" → none; else money in the account's unit, else a field error. */
export function parseThreshold(ctx: AppContext, raw: unknown): number | null {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (text === '') return null;
  const units = parseMoney(ctx.rules, text);
  if (units === null || units <= 0) {
    const example =
      ctx.rules.moneyDecimals === 0
        ? 'a whole number of credits, e.g. 500'
        : 'an amount in EUR, e.g. 5 or 2.50';
    throw new DashboardError('invalid_parameter', `Enter ${example}`, 'threshold');
  }
  return units;
}

/** What the page shows for the account. */
export async function view(
  ctx: AppContext,
  account: { id: string; email: string },
): Promise<NotificationsView> {
  const n = notificationsOf(ctx);
  const [settings, endpoints, log] = await Promise.all([
    ctx.store.notificationSettings(account.id),
    ctx.store.listWebhookEndpoints(account.id),
    ctx.store.deliveryLog(account.id, LOG_LINES),
  ]);
  const t = settings.lowBalanceThreshold;
  return {
    email: account.email,
    emailAvailable: n.sendsEmail,
    emailAlerts: settings.emailAlerts,
    // "5.00", not "5.0000": sub-cent digits only when there are any.
    threshold: t === null ? '' : formatMoney(ctx.rules, t).replace(/(\.\d\d(?:\d*[1-9])?)0+$/, '$1'),
    unit: ctx.rules.moneyUnit,
    endpoints,
    maxEndpoints: n.webhookRules.maxEndpoints,
    privateTargets: n.webhookRules.allowPrivate,
    log,
  };
}

/** Add an endpoint; its secret is returned for showing once (the store keeps the signing key only). */
export async function addEndpoint(
  ctx: AppContext,
  accountId: string,
  raw: unknown,
): Promise<{ url: string; secret: string }> {
  const rules = notificationsOf(ctx).webhookRules;
  const url = typeof raw === 'string' ? raw.trim() : '';
  const problem = url === '' ? 'is required' : webhookUrlProblem(url, rules.allowPrivate);
  if (problem !== null) throw new DashboardError('invalid_parameter', `The URL ${problem}`, 'url');
  const secret = newWebhookSecret();
  const added = await ctx.store.addWebhookEndpoint(
    accountId,
    url,
    secret.key,
    rules.maxEndpoints,
    ctx.clock.now(),
  );
  if (!added) throw new DashboardError('invalid_parameter', `At most ${rules.maxEndpoints} endpoints`, 'url');
  return { url, secret: secret.shown };
}

/**
 * Rule set B's Unlimited plan on the credit page: what it shows (the plan's end, the offer, the periods bought) and
 * starting a purchase (dashboard/payments/unlimited*.ts). A purchase by the demo `test` provider is recorded at once;
 * card and crypto go to the provider's page, and the period is recorded by the paid webhook only.
 */
import type { Actor } from '../../gateway/accounts/audit';
import type { PlanPeriod, PlanPurchase } from '../../gateway/store/plan-periods';
import { DAY_MS, periodStart } from '../../gateway/store/plan-periods';
import type { Account } from '../../gateway/store/types';
import type { AppContext } from '../context';
import { DashboardError, invalidField } from '../errors';
import type { CheckoutClient } from '../payments/stripe-provider';
import { MAX_AHEAD_MS, planOffer, type PlanOffer } from '../payments/unlimited';
import { GreenfieldPlanClient } from '../payments/unlimited-btcpay';
import { planCheckoutClient, startPlanCheckout } from '../payments/unlimited-stripe';

/** Periods shown on the credit page (newest first). */
export const PERIOD_ROWS = 12;

/** What the credit page shows of the plan. */
export interface PlanView {
  /** The plan's end (epoch ms) when it still runs, else null. */
  until: number | null;
  /** The offer, or null when the plan is not sold in the dashboard (the operator sets it). */
  offer: PlanOffer | null;
  /** Where a new period would end if bought now. */
  nextEnd: number | null;
  /** The ways to pay offered: card (Stripe or the demo provider) and crypto (BTCPay Server). */
  card: 'stripe' | 'test' | null;
  crypto: boolean;
  periods: PlanPeriod[];
  /** Whether the plan is already paid so far ahead that no period can be started now. */
  farAhead: boolean;
}

/** The card seller of this dashboard: the configured provider when it is Stripe or the demo provider. */
function cardOf(ctx: AppContext): 'stripe' | 'test' | null {
  const name = ctx.payments.name;
  if (name === 'test') return 'test';
  if (name === 'stripe' && ctx.config.payments?.stripe) return 'stripe';
  return null;
}

/** The plan as the credit page shows it (rule set B). */
export async function planView(ctx: AppContext, account: Account): Promise<PlanView> {
  const now = ctx.clock.now();
  const offer = planOffer(ctx.config.unlimitedPlan);
  const until =
    account.unlimitedUntil !== null && account.unlimitedUntil > now ? account.unlimitedUntil : null;
  return {
    until,
    offer,
    nextEnd: offer ? periodStart(until, now) + offer.days * DAY_MS : null,
    card: cardOf(ctx),
    crypto: ctx.config.payments?.crypto?.btcpay !== undefined,
    periods: await ctx.store.planPeriods(account.id, PERIOD_ROWS),
    farAhead: until !== null && until > now + MAX_AHEAD_MS,
  };
}

const checkoutClients = new WeakMap<AppContext, CheckoutClient>();
const greenfieldClients = new WeakMap<AppContext, GreenfieldPlanClient>();

/** What a purchase started: recorded now (demo provider) or the provider's payment page. */
export type PlanStart = { kind: 'bought'; purchase: PlanPurchase } | { kind: 'redirect'; url: string };

/**
 * Start buying one period by `rawMethod` ("card" or "crypto") with the form's id `rawId` (a double submit is one
 * checkout, one invoice or one demo purchase). Refusals are field errors (`plan`, `method`, `planId`); a provider
 * that cannot be reached is 502 payment_failed (nothing was charged).
 */
export async function startPlan(
  ctx: AppContext,
  account: Account,
  rawId: unknown,
  rawMethod: unknown,
  actor?: Actor,
): Promise<PlanStart> {
  if (ctx.rules.unlimited !== 'account-plan')
    throw new DashboardError('not_in_rule_set', 'This service sells Unlimited packages, not a plan');
  const offer = planOffer(ctx.config.unlimitedPlan);
  if (!offer) throw invalidField('plan', 'The Unlimited plan is set up by our team on request');
  if (typeof rawId !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(rawId))
    throw invalidField('planId', 'The form has expired; reload the page and try again');
  const now = ctx.clock.now();
  if (account.unlimitedUntil !== null && account.unlimitedUntil > now + MAX_AHEAD_MS) {
    const until = new Date(account.unlimitedUntil).toISOString().slice(0, 10);
    throw invalidField('plan', `Your plan is paid until ${until}; renew within a year of its end`);
  }
  const method = rawMethod === undefined || rawMethod === '' ? 'card' : rawMethod;
  const req = { accountId: account.id, email: account.email, offer, formId: rawId };
  if (method === 'card') {
    const card = cardOf(ctx);
    if (card === 'test') {
      const purchase = await ctx.accounts.buyPlan(
        account.id,
        `test:plan:${account.id}:${rawId}`,
        offer.days,
        { method: 'test', paid: { minor: offer.minor, currency: offer.currency } },
        actor,
      );
      return { kind: 'bought', purchase };
    }
    const stripe = ctx.config.payments?.stripe;
    if (card !== 'stripe' || !stripe) throw invalidField('method', 'Card payments are not configured here');
    let client = ctx.planCheckout ?? checkoutClients.get(ctx);
    if (!client) checkoutClients.set(ctx, (client = planCheckoutClient(stripe)));
    return {
      kind: 'redirect',
      url: await reaching(ctx, 'stripe', () => startPlanCheckout(client, ctx.config.publicUrl, req)),
    };
  }
  if (method === 'crypto') {
    const btcpay = ctx.config.payments?.crypto?.btcpay;
    if (!btcpay) throw invalidField('method', 'Crypto payments are not configured here');
    let client = greenfieldClients.get(ctx);
    if (!client) greenfieldClients.set(ctx, (client = new GreenfieldPlanClient(btcpay)));
    const invoice = await reaching(ctx, 'btcpay', () => client.createPlanInvoice(req, ctx.config.publicUrl));
    if (!invoice.checkoutLink)
      throw new DashboardError(
        'payment_failed',
        'The payment service answered without a payment page; nothing was charged',
      );
    return { kind: 'redirect', url: invoice.checkoutLink };
  }
  throw invalidField('method', 'The payment method is "card" or "crypto"');
}

/** Run a provider call; a failure is 502 payment_failed, logged without the provider's answer (it may echo secrets). */
async function reaching<T>(ctx: AppContext, provider: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    ctx.logger.warn({ provider, err: (err as Error).name }, 'dashboard: plan checkout could not be started');
    throw new DashboardError(
      'payment_failed',
      'The payment service could not be reached; nothing was charged. Try again.',
    );
  }
}

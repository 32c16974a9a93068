/**
 * Rule set B's Unlimited plan bought in the dashboard (D17, D32; docs/dashboard.md "Unlimited plan, self-serve"). One
 * payment of the configured price adds the configured number of days to the plan: by card (Stripe Checkout,
 * unlimited-stripe.ts), in crypto (BTCPay Server, unlimited-btcpay.ts) or at once with the demo `test` provider. A
 * checkout names what it sells in its metadata (`kind: unlimited_plan`, account, days, price); the paid webhook checks
 * the amount actually paid against it and records the period once per checkout or invoice (Store.buyPlanPeriod).
 */
import type { Response } from 'express';
import type pino from 'pino';
import { AccountError } from '../../gateway/accounts/errors';
import type { AccountsService } from '../../gateway/accounts/service';
import type { PlanPurchase } from '../../gateway/store/plan-periods';
import { DAY_MS, MAX_PLAN_DAYS } from '../../gateway/store/plan-periods';
import type { ReceiptInput } from '../../gateway/store/receipts';
import { StoreConflict } from '../../gateway/store/types';
import type { UnlimitedPlanConfig } from '../config';
import { minorUnits } from './amount';

/** The metadata `kind` of a plan checkout (Stripe) or invoice (Greenfield); top-ups carry none. */
export const PLAN_KIND = 'unlimited_plan';

/** How far ahead a running plan may already be paid when a new period is started (one year). */
export const MAX_AHEAD_MS = 366 * DAY_MS;

/** The plan as sold: its price in minor units of `currency`, and the days one payment adds. */
export interface PlanOffer {
  minor: number;
  currency: string;
  days: number;
}

/** The offer of a config's `unlimitedPlan` section, or null when the plan is not sold in the dashboard. */
export function planOffer(plan: UnlimitedPlanConfig | undefined): PlanOffer | null {
  if (!plan) return null;
  const minor = minorUnits(plan.price);
  if (minor === null) return null; // the schema allows only whole cents: not reached
  return { minor, currency: plan.currency, days: plan.periodDays };
}

/** What a plan checkout or invoice carries in its metadata (all strings: Stripe's metadata values are strings). */
export function planMetadata(accountId: string, offer: PlanOffer): Record<string, string> {
  return {
    kind: PLAN_KIND,
    accountId,
    days: String(offer.days),
    priceMinor: String(offer.minor),
    currency: offer.currency,
  };
}

/** Whether metadata names a plan purchase (rather than a top-up). */
export function isPlanMetadata(meta: Record<string, unknown> | null | undefined): boolean {
  return meta?.['kind'] === PLAN_KIND;
}

/** A paid plan: whose, how many days, what was paid. */
export interface PaidPlan {
  accountId: string;
  days: number;
  paid: { minor: number; currency: string };
}

/**
 * The plan purchase that a payment of `paid` (what the provider says was actually paid) stands for, or why it buys
 * nothing. Metadata names what was asked; the amount paid decides: anything but exactly the asked price buys nothing.
 */
export function paidPlan(
  meta: Record<string, unknown> | null | undefined,
  paid: { minor: number | null; currency: string },
): ({ ok: true } & PaidPlan) | { ok: false; reason: string } {
  if (!isPlanMetadata(meta)) return { ok: false, reason: 'not a plan purchase' };
  const accountId = meta?.['accountId'];
  const days = Number(meta?.['days']);
  const minor = Number(meta?.['priceMinor']);
  const currency = meta?.['currency'];
  if (typeof accountId !== 'string' || accountId === '' || typeof currency !== 'string')
    return { ok: false, reason: 'plan metadata without account or currency' };
  if (!Number.isSafeInteger(days) || days < 1 || days > MAX_PLAN_DAYS)
    return { ok: false, reason: 'plan metadata without a valid number of days' };
  if (!Number.isSafeInteger(minor) || minor <= 0)
    return { ok: false, reason: 'plan metadata without a valid price' };
  if (paid.minor !== minor || paid.currency.toUpperCase() !== currency.toUpperCase())
    return { ok: false, reason: 'amount paid does not match the plan price' };
  return { ok: true, accountId, days, paid: { minor, currency: currency.toUpperCase() } };
}

/**
 * Record a paid period once (ref: the provider's checkout or invoice id) and answer the provider
 * `{ received, extended }`. An account that is gone, or a deployment that sells no plan, is answered (the provider
 * stops retrying) and logged for the operator, who refunds the payment; store faults are thrown (the provider retries).
 */
export async function extendOnce(
  res: Response,
  deps: { accounts: Pick<AccountsService, 'buyPlan'>; logger: pino.Logger },
  plan: PaidPlan & { ref: string; payment: Omit<ReceiptInput, 'currency' | 'paid'> },
  fields: Record<string, unknown>,
): Promise<void> {
  let r: PlanPurchase;
  try {
    r = await deps.accounts.buyPlan(plan.accountId, plan.ref, plan.days, {
      ...plan.payment,
      paid: plan.paid,
    });
  } catch (err) {
    const gone = err instanceof StoreConflict && ['not_found', 'account_deleted'].includes(err.reason);
    const mismatch = err instanceof StoreConflict && err.reason === 'idempotency_mismatch';
    if (gone || mismatch || err instanceof AccountError) {
      const reason = err instanceof StoreConflict ? err.reason : (err as AccountError).refusal.code;
      deps.logger.warn(
        { ...fields, accountId: plan.accountId, reason },
        'dashboard: Unlimited plan payment not applied; refund it',
      );
      res.json({ received: true, extended: false });
      return;
    }
    throw err;
  }
  deps.logger.info(
    {
      ...fields,
      accountId: plan.accountId,
      replayed: r.replayed,
      until: new Date(r.period.endsAt).toISOString(),
      receipt: r.receipt.number,
    },
    'dashboard: Unlimited plan period',
  );
  res.json({ received: true, extended: !r.replayed });
}

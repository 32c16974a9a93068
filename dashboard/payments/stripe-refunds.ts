/**
 * Refunds and lost disputes of card top-ups (Stripe webhooks; gateway/store/refunds.ts). A top-up's receipt names
 * the PaymentIntent that paid it; these events name it too:
 * - `charge.refunded`: the Charge's `amount_refunded` is the running total of its refunds (partial ones add up);
 * - `charge.dispute.closed` with status `lost`: the disputed amount is gone for good. A dispute that is only
 *   opened (`charge.dispute.created`) moves no credit: it may still be won; it is logged for the operator.
 * The store applies what a total adds, once per event, so redeliveries and late, older events change nothing.
 */
import type pino from 'pino';
import type Stripe from 'stripe';
import type { AccountsService } from '../../gateway/accounts/service';
import type { RefundInput } from '../../gateway/store/refunds';
import type { StripeConfig } from '../config';

/** The event types handled here. */
export const REFUND_EVENTS: readonly string[] = [
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
];

/** The payment an object names (an id, or an expanded object's id), or null. */
function paymentOf(pi: string | { id: string } | null | undefined): string | null {
  if (typeof pi === 'string') return pi;
  return pi && typeof pi.id === 'string' ? pi.id : null;
}

/** The refund the event reports, or why it moves no credit. */
export function refundOf(event: Stripe.Event, cfg: StripeConfig): RefundInput | { ignore: string } {
  const eventRef = `stripe:${event.id}`;
  if (event.type === 'charge.refunded') {
    const charge = event.data.object;
    const paymentRef = paymentOf(charge.payment_intent);
    if (!paymentRef) return { ignore: 'charge without a PaymentIntent' };
    if (charge.currency !== cfg.priceCurrency) return { ignore: `charge in ${charge.currency}` };
    if (!Number.isSafeInteger(charge.amount_refunded) || charge.amount_refunded < 0)
      return { ignore: 'amount_refunded is not whole minor units' };
    return {
      paymentRef,
      claim: `refund:${charge.id}`,
      total: charge.amount_refunded * cfg.unitsPerMinorUnit,
      eventRef,
    };
  }
  if (event.type === 'charge.dispute.closed') {
    const dispute = event.data.object;
    if (dispute.status !== 'lost') return { ignore: `dispute ${dispute.status}` };
    const paymentRef = paymentOf(dispute.payment_intent);
    if (!paymentRef) return { ignore: 'dispute without a PaymentIntent' };
    if (dispute.currency !== cfg.priceCurrency) return { ignore: `dispute in ${dispute.currency}` };
    if (!Number.isSafeInteger(dispute.amount) || dispute.amount < 0)
      return { ignore: 'amount is not whole minor units' };
    return {
      paymentRef,
      claim: `dispute:${dispute.id}`,
      total: dispute.amount * cfg.unitsPerMinorUnit,
      eventRef,
    };
  }
  return {
    ignore: event.type === 'charge.dispute.created' ? 'dispute opened (moves credit when lost)' : event.type,
  };
}

/** Handle a refund or dispute event; resolves to the answer for Stripe. Store faults are thrown (Stripe retries). */
export async function handleRefundEvent(
  event: Stripe.Event,
  deps: { accounts: Pick<AccountsService, 'refundTopUp'>; logger: pino.Logger; cfg: StripeConfig },
): Promise<Record<string, unknown>> {
  const input = refundOf(event, deps.cfg);
  if ('ignore' in input) {
    const level = event.type === 'charge.dispute.created' ? 'warn' : 'info';
    deps.logger[level](
      { event: event.id, type: event.type, reason: input.ignore },
      'dashboard: Stripe event moves no credit',
    );
    return { received: true, refunded: false };
  }
  const r = await deps.accounts.refundTopUp(input);
  const fields = {
    event: event.id,
    type: event.type,
    status: r.status,
    accountId: r.accountId,
    removed: r.removed,
    owed: r.owed,
    creditNote: r.creditNote?.number ?? null,
  };
  // A payment no receipt names: a charge of another integration on the same Stripe account, or a top-up credited
  // before receipts named their payment. Answered (Stripe stops retrying); the operator sees the warning.
  if (r.status === 'unknown_payment')
    deps.logger.warn(fields, 'dashboard: Stripe refund of an unknown payment');
  else if (r.owed > 0) deps.logger.warn(fields, 'dashboard: refund exceeds the balance; the rest is owed');
  else deps.logger.info(fields, 'dashboard: refund');
  return { received: true, refunded: r.status === 'applied' };
}

/**
 * The Unlimited plan in crypto (rule set B, D32): a Greenfield invoice for one period's price whose metadata names the
 * plan, and the handling of its settled invoice in the BTCPay webhook (btcpay-webhook.ts hands plan invoices here
 * after reading the invoice back from Greenfield). The invoice's own amount and currency decide, not its metadata.
 */
import type { Response } from 'express';
import type pino from 'pino';
import type { AccountsService } from '../../gateway/accounts/service';
import type { BtcpayConfig } from '../config';
import { minorUnits } from './amount';
import { GreenfieldClient, type FetchLike, type GreenfieldInvoice } from './btcpay';
import { extendOnce, paidPlan, planMetadata, type PlanOffer } from './unlimited';

/** "199.00" from 19900 minor units. */
function decimal(minor: number): string {
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/** A Greenfield client that also creates plan invoices. */
export class GreenfieldPlanClient extends GreenfieldClient {
  constructor(cfg: BtcpayConfig, fetchImpl?: FetchLike) {
    super(cfg, fetchImpl);
  }

  /** POST /api/v1/stores/{storeId}/invoices for one period; `orderId` makes the invoice traceable to the form. */
  createPlanInvoice(
    req: { accountId: string; email: string; offer: PlanOffer; formId: string },
    publicUrl: string,
  ): Promise<GreenfieldInvoice> {
    const base = publicUrl.replace(/\/+$/, '');
    return this.call(this.base, {
      method: 'POST',
      body: JSON.stringify({
        amount: decimal(req.offer.minor),
        currency: req.offer.currency,
        metadata: {
          ...planMetadata(req.accountId, req.offer),
          orderId: `plan:${req.accountId}:${req.formId}`,
          itemDesc: `Unlimited plan, ${req.offer.days} days`,
          buyerEmail: req.email,
        },
        checkout: { redirectURL: `${base}/credit?plan=pending`, redirectAutomatically: true },
      }),
    });
  }
}

/** A settled plan invoice from the webhook: record its period once, by invoice id, or say why not. */
export async function planInvoiceSettled(
  res: Response,
  deps: { accounts: Pick<AccountsService, 'buyPlan'>; logger: pino.Logger; cfg: BtcpayConfig },
  inv: GreenfieldInvoice,
): Promise<void> {
  const plan =
    inv.storeId !== deps.cfg.storeId
      ? ({ ok: false, reason: 'invoice of another store' } as const)
      : inv.status !== 'Settled'
        ? ({ ok: false, reason: `invoice ${inv.status}` } as const)
        : paidPlan(inv.metadata, { minor: minorUnits(inv.amount), currency: inv.currency });
  if (!plan.ok) {
    deps.logger.warn(
      { invoiceId: inv.id, reason: plan.reason },
      'dashboard: BTCPay plan invoice not applied',
    );
    res.json({ received: true, extended: false });
    return;
  }
  await extendOnce(
    res,
    deps,
    { ...plan, ref: `btcpay:${inv.id}`, payment: { method: 'crypto' } },
    { invoiceId: inv.id },
  );
}

/**
 * POST /webhooks/btcpay: verify `BTCPay-Sig` (HMAC-SHA256 of the exact body with the webhook secret), then for an
 * `InvoiceSettled` event read the invoice back from Greenfield and credit it exactly once (by invoice id, D32).
 * Duplicate or re-delivered events credit nothing more; other event types, expired or invalid invoices credit
 * nothing. When Greenfield cannot be reached the answer is 503, so BTCPay Server delivers the event again.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { type Router } from 'express';
import type pino from 'pino';
import type { AccountsService } from '../../gateway/accounts/service';
import type { BtcpayConfig } from '../config';
import { GreenfieldClient, GreenfieldError, settledTopUp } from './btcpay';
import { creditOnce } from './credit-once';
import { isPlanMetadata } from './unlimited';
import { planInvoiceSettled } from './unlimited-btcpay';

/** Whether `header` is `sha256=<hex>` of the body under the secret (constant-time comparison). */
export function validBtcpaySignature(body: Buffer, header: unknown, secret: string): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const expected = createHmac('sha256', secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The event fields read from a delivery. */
interface Delivery {
  type?: unknown;
  invoiceId?: unknown;
  storeId?: unknown;
  deliveryId?: unknown;
}

/** Register the webhook route (raw body: the signature covers the exact bytes). */
export function btcpayWebhook(
  router: Router,
  deps: {
    accounts: Pick<AccountsService, 'topUp' | 'buyPlan'>;
    logger: pino.Logger;
    cfg: BtcpayConfig;
    client?: GreenfieldClient;
  },
): void {
  const { logger, cfg } = deps;
  const greenfield = deps.client ?? new GreenfieldClient(cfg);
  router.post('/webhooks/btcpay', express.raw({ type: '*/*', limit: '256kb' }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!validBtcpaySignature(body, req.headers['btcpay-sig'], cfg.webhookSecret)) {
      res.status(400).json({ error: 'invalid signature' });
      return;
    }
    let event: Delivery;
    try {
      event = JSON.parse(body.toString('utf8')) as Delivery;
    } catch {
      res.status(400).json({ error: 'body is not JSON' });
      return;
    }
    if (event.type !== 'InvoiceSettled') {
      res.json({ received: true, ignored: typeof event.type === 'string' ? event.type : 'unknown' });
      return;
    }
    if (typeof event.invoiceId !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(event.invoiceId)) {
      res.status(400).json({ error: 'invoiceId missing or malformed' });
      return;
    }
    if (event.storeId !== cfg.storeId) {
      res.json({ received: true, credited: false });
      return;
    }
    let invoice;
    try {
      invoice = await greenfield.getInvoice(event.invoiceId);
    } catch (err) {
      const status = err instanceof GreenfieldError ? err.status : null;
      logger.warn({ invoiceId: event.invoiceId, status }, 'dashboard: BTCPay invoice could not be read back');
      // 404: no such invoice on our store (a forged id with a valid signature cannot happen; a deleted one can).
      if (status === 404) res.json({ received: true, credited: false });
      else res.status(503).json({ error: 'BTCPay Server could not be reached; deliver again' });
      return;
    }
    // Rule set B's Unlimited plan (unlimited-btcpay.ts): a period, not credit.
    if (isPlanMetadata(invoice.metadata)) return void (await planInvoiceSettled(res, deps, invoice));
    const topUp = settledTopUp(cfg, invoice);
    if (!topUp.ok) {
      logger.warn({ invoiceId: invoice.id, reason: topUp.reason }, 'dashboard: BTCPay invoice not credited');
      res.json({ received: true, credited: false });
      return;
    }
    await creditOnce(
      res,
      deps,
      {
        accountId: topUp.accountId,
        units: topUp.units,
        ref: `btcpay:${invoice.id}`,
        payment: {
          method: 'crypto',
          paid: { minor: topUp.units / cfg.unitsPerMinorUnit, currency: cfg.priceCurrency.toUpperCase() },
        },
      },
      { fields: { invoiceId: invoice.id }, message: 'dashboard: crypto top-up' },
    );
  });
}

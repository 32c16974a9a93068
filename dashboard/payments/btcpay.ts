/**
 * Crypto top-ups through a self-hosted BTCPay Server (D32, spec §2 rule set B): the Greenfield API creates an invoice
 * for the chosen amount and the customer pays on its checkout page; the account is credited by the signed
 * `InvoiceSettled` webhook (btcpay-webhook.ts), never by the browser's return. The webhook body is only a pointer:
 * the invoice is read back from the Greenfield API and credited only when it is Settled, ours, and of the amount
 * asked, once per invoice id (the ledger's idempotency key).
 */
import type { BtcpayConfig } from '../config';
import { invalidField } from '../errors';
import { minorUnits } from './amount';
import type { PaymentProvider, TopUpRequest } from './types';

/** The fields of a Greenfield invoice (InvoiceData) the gateway reads. */
export interface GreenfieldInvoice {
  id: string;
  storeId: string;
  amount: string;
  currency: string;
  status: string;
  checkoutLink?: string;
  metadata?: Record<string, unknown>;
}

/** How the gateway talks to Greenfield: `fetch` by default, injectable for tests. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Greenfield gave an answer the gateway cannot use, or could not be reached. */
export class GreenfieldError extends Error {
  constructor(
    message: string,
    /** The HTTP status Greenfield answered, or null when it could not be reached. */
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** How long one Greenfield call may take. */
const CALL_TIMEOUT_MS = 10_000;

/** The invoice amount of `units` in the configured currency, as Greenfield takes it ("12.50"). */
export function invoiceAmount(cfg: BtcpayConfig, units: number): string {
  const minor = units / cfg.unitsPerMinorUnit;
  return `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
}

/** A small Greenfield API client: create an invoice, read one back. */
export class GreenfieldClient {
  protected readonly base: string;
  constructor(
    protected readonly cfg: BtcpayConfig,
    private readonly fetchImpl: FetchLike = fetch,
  ) {
    this.base = `${cfg.url.replace(/\/+$/, '')}/api/v1/stores/${encodeURIComponent(cfg.storeId)}/invoices`;
  }

  protected async call(url: string, init: RequestInit): Promise<GreenfieldInvoice> {
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        ...init,
        headers: {
          authorization: `token ${this.cfg.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
    } catch (err) {
      throw new GreenfieldError(`BTCPay Server unreachable: ${(err as Error).name}`, null);
    }
    const text = await res.text();
    // The status only: a Greenfield error body may echo request fields, and the API key never goes into a log.
    if (!res.ok) throw new GreenfieldError(`BTCPay Server answered ${res.status}`, res.status);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new GreenfieldError('BTCPay Server answered something that is not JSON', res.status);
    }
    const inv = body as Partial<GreenfieldInvoice>;
    if (
      typeof inv.id !== 'string' ||
      typeof inv.storeId !== 'string' ||
      typeof inv.amount !== 'string' ||
      typeof inv.currency !== 'string' ||
      typeof inv.status !== 'string'
    ) {
      throw new GreenfieldError('BTCPay Server answered an invoice without id, amount or status', res.status);
    }
    return inv as GreenfieldInvoice;
  }

  /** POST /api/v1/stores/{storeId}/invoices. */
  createInvoice(req: TopUpRequest, publicUrl: string): Promise<GreenfieldInvoice> {
    const base = publicUrl.replace(/\/+$/, '');
    return this.call(this.base, {
      method: 'POST',
      body: JSON.stringify({
        amount: invoiceAmount(this.cfg, req.units),
        currency: this.cfg.priceCurrency,
        metadata: {
          orderId: `topup:${req.accountId}:${req.idempotencyKey}`,
          accountId: req.accountId,
          units: String(req.units),
          buyerEmail: req.email,
        },
        checkout: { redirectURL: `${base}/credit?topup=pending`, redirectAutomatically: true },
      }),
    });
  }

  /** GET /api/v1/stores/{storeId}/invoices/{invoiceId}. */
  getInvoice(invoiceId: string): Promise<GreenfieldInvoice> {
    return this.call(`${this.base}/${encodeURIComponent(invoiceId)}`, { method: 'GET' });
  }
}

/** The top-up a Greenfield invoice pays for, or why it credits nothing. */
export function settledTopUp(
  cfg: BtcpayConfig,
  inv: GreenfieldInvoice,
): { ok: true; accountId: string; units: number } | { ok: false; reason: string } {
  if (inv.storeId !== cfg.storeId) return { ok: false, reason: 'invoice of another store' };
  if (inv.status !== 'Settled') return { ok: false, reason: `invoice ${inv.status}` };
  const accountId = inv.metadata?.['accountId'];
  const units = Number(inv.metadata?.['units']);
  if (typeof accountId !== 'string' || !Number.isSafeInteger(units) || units <= 0) {
    return { ok: false, reason: 'not a top-up invoice' };
  }
  // The invoice's own amount and currency decide; metadata only names the unit count we asked for.
  // Compared in minor units: Greenfield writes 5.00 as "5", "5.0" or "5.00" depending on how it was made.
  if (
    inv.currency.toUpperCase() !== cfg.priceCurrency ||
    minorUnits(inv.amount) !== units / cfg.unitsPerMinorUnit
  ) {
    return { ok: false, reason: 'amount does not match the units' };
  }
  return { ok: true, accountId, units };
}

/** Smallest crypto top-up, in minor currency units (1.00). */
const MIN_MINOR = 100;

/** The BTCPay provider: the customer is sent to the invoice's checkout page. */
export function btcpayProvider(
  cfg: BtcpayConfig,
  publicUrl: string,
  client?: GreenfieldClient,
): PaymentProvider {
  const greenfield = client ?? new GreenfieldClient(cfg);
  return {
    name: 'btcpay',
    checkAmount(units) {
      const minor = units / cfg.unitsPerMinorUnit;
      if (!Number.isInteger(minor))
        throw invalidField('amount', 'Crypto payments need an amount in whole cents');
      if (minor < MIN_MINOR) throw invalidField('amount', 'Crypto payments start at 1.00');
    },
    async startTopUp(req) {
      const invoice = await greenfield.createInvoice(req, publicUrl);
      if (!invoice.checkoutLink)
        throw new GreenfieldError('BTCPay Server returned an invoice without a checkout link', 200);
      return { kind: 'redirect', url: invoice.checkoutLink };
    },
  };
}

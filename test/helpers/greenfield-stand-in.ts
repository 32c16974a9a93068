/**
 * A local stand-in for BTCPay Server (issue 15 item 6, D32) for the tests. BTCPay Server itself (a .NET
 * service with a Bitcoin node) cannot run here, so this replays the documented shapes of its Greenfield API:
 * `InvoiceData` for "Create invoice" (POST /api/v1/stores/{storeId}/invoices) and "Get invoice" (GET
 * .../invoices/{invoiceId}), 404 `{"code":"invoice-not-found"}` for an unknown id, and a minimal checkout page at the
 * invoice's `checkoutLink` where the customer "pays" (the invoice becomes Settled) and is sent back to
 * `checkout.redirectURL`. Webhook deliveries are built and signed as BTCPay Server does (`BTCPay-Sig: sha256=<HMAC
 * hex of the body>`) by `delivery` and `sign`. Used by the browser walk and test/integration/dashboard/btcpay.test.ts.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BtcpayConfig } from '../../dashboard/config';

export const STAND_IN_STORE = 'GkXq8RpLWfT3yZ2mJ9aVbC7nD4sE6hU1oPiKjMlNwQr';
export const STAND_IN_API_KEY = 'greenfield-api-key-for-tests';
export const STAND_IN_WEBHOOK_SECRET = 'btcpay-webhook-secret-for-tests';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The Greenfield API and checkout stand-in: keeps invoices, lets a test move their status, records every request. */
export class GreenfieldStandIn {
  readonly invoices = new Map<string, Record<string, unknown>>();
  readonly requests: { method: string; url: string; authorization: string | undefined; body: string }[] = [];
  url = '';
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (!req.url?.startsWith('/i/') && req.url !== '/favicon.ico') {
        this.requests.push({
          method: req.method ?? '',
          url: req.url ?? '',
          authorization: req.headers.authorization,
          body,
        });
      }
      this.answer(req, res, body);
    });
  });

  /** Change an invoice as BTCPay Server would (its status, say). */
  set(id: string, patch: Record<string, unknown>): void {
    this.invoices.set(id, { ...this.invoices.get(id), ...patch });
  }

  /** The dashboard's BTCPay section for this stand-in (1 credit per cent of EUR unless told). */
  config(unitsPerMinorUnit = 1): BtcpayConfig {
    return {
      url: this.url,
      storeId: STAND_IN_STORE,
      apiKey: STAND_IN_API_KEY,
      webhookSecret: STAND_IN_WEBHOOK_SECRET,
      priceCurrency: 'EUR',
      unitsPerMinorUnit,
    };
  }

  async start(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server.close(() => r());
      this.server.closeAllConnections();
    });
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    const page = (status: number, html: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    };
    const url = req.url ?? '';
    if (url === '/favicon.ico') return void res.writeHead(204).end();
    const checkout = /^\/i\/([A-Za-z0-9]+)(\/pay)?$/.exec(url);
    if (checkout) return this.checkout(req, checkout[1] ?? '', Boolean(checkout[2]), page);
    if (req.headers.authorization !== `token ${STAND_IN_API_KEY}`) {
      return send(401, {
        code: 'unauthenticated',
        message: 'Authentication is required for accessing this endpoint',
      });
    }
    const base = `/api/v1/stores/${STAND_IN_STORE}/invoices`;
    if (req.method === 'POST' && url === base) {
      const asked = JSON.parse(body) as Record<string, unknown>;
      const id = randomBytes(16).toString('base64url').replace(/[-_]/g, 'x').slice(0, 22);
      const now = Math.floor(Date.now() / 1000);
      const invoice = {
        id,
        storeId: STAND_IN_STORE,
        amount: asked['amount'],
        currency: asked['currency'],
        type: 'Standard',
        checkoutLink: `${this.url}/i/${id}`,
        status: 'New',
        additionalStatus: 'None',
        createdTime: now,
        expirationTime: now + 900,
        monitoringExpiration: now + 3600,
        archived: false,
        metadata: asked['metadata'],
        checkout: asked['checkout'],
      };
      this.invoices.set(id, invoice);
      return send(200, invoice);
    }
    const m = /^\/api\/v1\/stores\/([^/]+)\/invoices\/([^/?]+)$/.exec(url);
    if (req.method === 'GET' && m && m[1] === STAND_IN_STORE) {
      const invoice = this.invoices.get(decodeURIComponent(m[2] ?? ''));
      if (!invoice) return send(404, { code: 'invoice-not-found', message: 'The invoice was not found' });
      return send(200, invoice);
    }
    send(404, { code: 'not-found', message: 'Not found' });
  }

  /** GET /i/{id}: the checkout page; POST /i/{id}/pay: the payment settles, back to the merchant's redirect URL. */
  private checkout(
    req: http.IncomingMessage,
    id: string,
    pay: boolean,
    page: (status: number, html: string) => void,
  ): void {
    const invoice = this.invoices.get(id);
    if (!invoice) return page(404, '<!doctype html><title>Not found</title><p>No such invoice</p>');
    if (pay && req.method === 'POST') {
      this.invoices.set(id, { ...invoice, status: 'Settled' });
      const back = (invoice['checkout'] as { redirectURL?: string } | undefined)?.redirectURL;
      return page(
        200,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Paid</title></head><body><main>
        <h1>Invoice paid</h1><p>Payment settled.</p>
        ${back ? `<a id="return" href="${esc(back)}">Return to the merchant</a>` : ''}</main></body></html>`,
      );
    }
    page(
      200,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay invoice</title></head><body><main>
      <h1>Pay ${esc(String(invoice['amount']))} ${esc(String(invoice['currency']))}</h1>
      <p data-invoice="${esc(id)}">Invoice ${esc(id)} (stand-in checkout)</p>
      <form method="post" action="/i/${esc(id)}/pay"><button id="pay" type="submit">Pay with Bitcoin</button></form>
      </main></body></html>`,
    );
  }
}

/** A webhook delivery as BTCPay Server sends it. */
export function delivery(type: string, invoiceId: string, redelivery = false): string {
  const deliveryId = randomBytes(8).toString('hex');
  return JSON.stringify({
    deliveryId,
    webhookId: 'Wh7Sg4cXw2PrVqLz',
    originalDeliveryId: redelivery ? 'first-delivery' : deliveryId,
    isRedelivery: redelivery,
    type,
    timestamp: Math.floor(Date.now() / 1000),
    storeId: STAND_IN_STORE,
    invoiceId,
    manuallyMarked: false,
    overPaid: false,
  });
}

/** The `BTCPay-Sig` header of a body. */
export const sign = (body: string, secret = STAND_IN_WEBHOOK_SECRET): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** POST a delivery to the dashboard's webhook; resolves with status and parsed body. */
export async function deliver(
  dashboardUrl: string,
  body: string,
  signature: string | null,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['btcpay-sig'] = signature;
  const res = await fetch(`${dashboardUrl}/webhooks/btcpay`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

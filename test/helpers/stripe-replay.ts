/**
 * A replay server for the Stripe API (api.stripe.com cannot be reached here): the official `stripe` library is
 * pointed at it (`host`, `port`, `protocol: 'http'`) and gets the answers Stripe documents, so the dashboard's code
 * runs against the real client, its form encoding, its error classes and its idempotency keys.
 *
 * Where each answer comes from (Stripe's own documentation):
 * - Customers: "Create a customer" (POST /v1/customers), the Customer object (docs.stripe.com/api/customers/object).
 * - Checkout in setup mode: "Set up future payments" (docs.stripe.com/payments/save-and-reuse?ui=stripe-hosted):
 *   `mode=setup` with `currency` and `customer`, the Session's `url`, and on completion the
 *   `checkout.session.completed` event whose Session has `mode: "setup"`, `status: "complete"`, `setup_intent`.
 * - SetupIntents: "Retrieve a SetupIntent" (GET /v1/setup_intents/:id), the SetupIntent object
 *   (docs.stripe.com/api/setup_intents/object): `status: "succeeded"`, `customer`, `payment_method`, `usage:
 *   "off_session"`, `metadata` from `setup_intent_data.metadata`.
 * - PaymentMethods: "Retrieve a PaymentMethod" (GET /v1/payment_methods/:id), the PaymentMethod object
 *   (docs.stripe.com/api/payment_methods/object): `type: "card"`, `card.brand`, `last4`, `exp_month`, `exp_year`.
 *   The cards are Stripe's documented test cards (docs.stripe.com/testing): pm_card_visa (4242… succeeds),
 *   pm_card_chargeDeclined (4000000000000002, `card_declined` / `generic_decline`),
 *   pm_card_chargeDeclinedInsufficientFunds (4000000000009995, `insufficient_funds`),
 *   pm_card_authenticationRequired (4000002760003184, needs authentication on every payment: off-session it fails
 *   with `authentication_required`).
 * - Off-session PaymentIntents: "Charge the saved payment method later" in the same guide and "Create a
 *   PaymentIntent" (POST /v1/payment_intents with `off_session=true&confirm=true`): a succeeded PaymentIntent with
 *   `amount_received`; a failure is HTTP 402 with `error.type: "card_error"`, `error.code` (`card_declined`,
 *   `authentication_required`), `error.decline_code` and `error.payment_intent` in status `requires_payment_method`
 *   (docs.stripe.com/api/errors, docs.stripe.com/declines/codes).
 * - `requires_action`: a PaymentIntent confirmed without the customer that needs 3D Secure is answered 200 with
 *   `status: "requires_action"` and `next_action.type: "use_stripe_sdk"` (the PaymentIntent object's statuses,
 *   docs.stripe.com/payments/paymentintents/lifecycle); pm_card_threeDSecure2Required (4000000000003220) answers it.
 * - Idempotent requests (docs.stripe.com/api/idempotent_requests): a repeated `Idempotency-Key` gets the first
 *   answer again (status and body) with `Idempotent-Replayed: true`; the same key with other parameters is 400
 *   `idempotency_error`.
 * - Webhook events are signed like Stripe's (`Stripe-Signature: t=…,v1=…`) by the library's
 *   `generateTestHeaderString`, and checked by the dashboard with `constructEvent`.
 *
 * The stand-in also serves a minimal hosted page at each setup Session's path (tests reach it through
 * `https://checkout.stripe.com/...` by routing the browser there): choosing a test card completes the SetupIntent,
 * sends the signed `checkout.session.completed` to the dashboard's webhook and redirects to `success_url`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/** Stripe's documented test cards by PaymentMethod id. */
export const TEST_CARDS: Record<string, { brand: string; last4: string; outcome: Outcome }> = {
  pm_card_visa: { brand: 'visa', last4: '4242', outcome: 'succeeded' },
  pm_card_chargeDeclined: { brand: 'visa', last4: '0002', outcome: 'card_declined' },
  pm_card_chargeDeclinedInsufficientFunds: { brand: 'visa', last4: '9995', outcome: 'insufficient_funds' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', outcome: 'authentication_required' },
  pm_card_threeDSecure2Required: { brand: 'visa', last4: '3220', outcome: 'requires_action' },
};

type Outcome =
  'succeeded' | 'card_declined' | 'insufficient_funds' | 'authentication_required' | 'requires_action';

interface Answer {
  status: number;
  body: unknown;
}

/** One request the stand-in received (secrets are not kept: the Authorization header is only checked). */
export interface StripeRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  idempotencyKey: string | undefined;
  replayed: boolean;
}

const now = () => Math.floor(Date.now() / 1000);
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The Stripe API stand-in. */
export class StripeReplay {
  url = '';
  port = 0;
  readonly requests: StripeRequest[] = [];
  readonly customers = new Map<string, Record<string, unknown>>();
  readonly sessions = new Map<string, Record<string, unknown>>();
  readonly setupIntents = new Map<string, Record<string, unknown>>();
  readonly paymentIntents = new Map<string, Record<string, unknown>>();
  /** Idempotency key → the parameters and the first answer. */
  private readonly idempotent = new Map<string, { params: string; answer: Answer }>();
  private seq = 0;
  /** Where completed setup sessions are announced, and the secret they are signed with. */
  webhook: { url: string; secret: string } | null = null;
  /** Answer POST /v1/payment_intents with this status (e.g. 500) instead of the card's outcome, while set. */
  failNextCreates = 0;
  private readonly signer = new Stripe('sk_test_replay_signer');
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      void this.handle(req, body).then(
        (a) => {
          if ('redirect' in a) {
            res.writeHead(303, { location: a.redirect });
            res.end();
            return;
          }
          if ('html' in a) {
            res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
            res.end(a.html);
            return;
          }
          res.writeHead(a.status, {
            'content-type': 'application/json',
            'request-id': `req_${++this.seq}`,
            ...(a.replayed ? { 'idempotent-replayed': 'true' } : {}),
          });
          res.end(JSON.stringify(a.body));
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { type: 'api_error', message: String(err) } }));
        },
      );
    });
  });

  /** Listen on 127.0.0.1 (a free port). */
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
    return this;
  }

  /** The official library, pointed here. */
  client(): Stripe {
    return new Stripe('sk_test_replay_key', {
      host: '127.0.0.1',
      port: this.port,
      protocol: 'http',
      maxNetworkRetries: 0,
      timeout: 5_000,
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** PaymentIntents created (not replays), in order. */
  created(): Record<string, unknown>[] {
    return [...this.paymentIntents.values()];
  }

  private id(prefix: string): string {
    return `${prefix}_${(++this.seq).toString(36).padStart(8, '0')}${Math.random().toString(36).slice(2, 10)}`;
  }

  private async handle(
    req: http.IncomingMessage,
    body: string,
  ): Promise<(Answer & { replayed?: boolean }) | { redirect: string } | { html: string }> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const path = url.pathname;
    const params = Object.fromEntries(new URLSearchParams(body || url.search.slice(1)));
    // The hosted setup page (reached through https://checkout.stripe.com/c/setup/<id> in the browser).
    const page = /^\/c\/setup\/(cs_[A-Za-z0-9_]+)$/.exec(path);
    if (page) return this.hosted(req.method ?? 'GET', page[1] as string, params);
    if (!/^Bearer sk_test_/.test(req.headers.authorization ?? '')) {
      return {
        status: 401,
        body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } },
      };
    }
    const key = req.headers['idempotency-key'];
    const idem = typeof key === 'string' ? key : undefined;
    const record = (replayed: boolean) =>
      this.requests.push({ method: req.method ?? '', path, params, idempotencyKey: idem, replayed });
    if (idem !== undefined && req.method === 'POST') {
      const seen = this.idempotent.get(idem);
      if (seen) {
        record(true);
        if (seen.params !== body) {
          return {
            status: 400,
            body: {
              error: {
                type: 'idempotency_error',
                message: `Keys for idempotent requests can only be used with the same parameters they were first used with.`,
              },
            },
          };
        }
        return { ...seen.answer, replayed: true };
      }
    }
    record(false);
    const answer = this.answer(req.method ?? 'GET', path, params);
    // Stripe does not keep 5xx answers under an idempotency key: the request may be retried.
    if (idem !== undefined && req.method === 'POST' && answer.status < 500) {
      this.idempotent.set(idem, { params: body, answer });
    }
    return answer;
  }

  private answer(method: string, path: string, p: Record<string, string>): Answer {
    const notFound = (what: string, id: string): Answer => ({
      status: 404,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: `No such ${what}: '${id}'`,
          param: 'id',
        },
      },
    });
    const meta = (prefix: string): Record<string, string> =>
      Object.fromEntries(
        Object.entries(p)
          .filter(([k]) => k.startsWith(`${prefix}[`))
          .map(([k, v]) => [k.slice(prefix.length + 1, -1), v]),
      );
    if (method === 'POST' && path === '/v1/customers') {
      const c = {
        id: this.id('cus'),
        object: 'customer',
        created: now(),
        email: p['email'] ?? null,
        livemode: false,
        metadata: meta('metadata'),
        invoice_settings: { default_payment_method: null },
      };
      this.customers.set(c.id, c);
      return { status: 200, body: c };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      const id = this.id('cs_test');
      const s = {
        id,
        object: 'checkout.session',
        mode: p['mode'],
        currency: p['currency'] ?? null,
        customer: p['customer'] ?? null,
        client_reference_id: p['client_reference_id'] ?? null,
        metadata: meta('metadata'),
        setup_intent_metadata: meta('setup_intent_data[metadata]'),
        status: 'open',
        payment_status: 'no_payment_required',
        setup_intent: null,
        success_url: p['success_url'],
        cancel_url: p['cancel_url'],
        url: `https://checkout.stripe.com/c/setup/${id}`,
        livemode: false,
      };
      if (s.mode !== 'setup' || !s.currency || !s.customer || !this.customers.has(s.customer)) {
        return {
          status: 400,
          body: {
            error: { type: 'invalid_request_error', message: 'setup mode needs currency and a customer' },
          },
        };
      }
      this.sessions.set(id, s);
      return { status: 200, body: s };
    }
    let m = /^\/v1\/setup_intents\/([A-Za-z0-9_]+)$/.exec(path);
    if (method === 'GET' && m) {
      const si = this.setupIntents.get(m[1] as string);
      return si ? { status: 200, body: si } : notFound('setup_intent', m[1] as string);
    }
    m = /^\/v1\/payment_methods\/([A-Za-z0-9_]+)$/.exec(path);
    if (method === 'GET' && m) {
      const pm = this.paymentMethod(m[1] as string, null);
      return pm ? { status: 200, body: pm } : notFound('payment_method', m[1] as string);
    }
    m = /^\/v1\/payment_intents\/([A-Za-z0-9_]+)$/.exec(path);
    if (method === 'GET' && m) {
      const pi = this.paymentIntents.get(m[1] as string);
      return pi ? { status: 200, body: pi } : notFound('payment_intent', m[1] as string);
    }
    if (method === 'POST' && path === '/v1/payment_intents') return this.createIntent(p, meta('metadata'));
    return {
      status: 404,
      body: {
        error: { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` },
      },
    };
  }

  /** The documented PaymentMethod object of a test card, attached to `customer`. */
  paymentMethod(id: string, customer: string | null): Record<string, unknown> | null {
    const card = TEST_CARDS[id];
    if (!card) return null;
    return {
      id,
      object: 'payment_method',
      type: 'card',
      customer,
      created: now(),
      livemode: false,
      billing_details: { address: null, email: null, name: null, phone: null },
      card: {
        brand: card.brand,
        last4: card.last4,
        exp_month: 12,
        exp_year: 2034,
        country: 'US',
        funding: 'credit',
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
      },
      metadata: {},
    };
  }

  private createIntent(p: Record<string, string>, metadata: Record<string, string>): Answer {
    if (this.failNextCreates > 0) {
      this.failNextCreates -= 1;
      return { status: 500, body: { error: { type: 'api_error', message: 'An unknown error occurred' } } };
    }
    const pmId = p['payment_method'] ?? '';
    const card = TEST_CARDS[pmId];
    if (!card || !p['customer'] || !this.customers.has(p['customer'])) {
      return {
        status: 400,
        body: {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            message: `No such PaymentMethod: '${pmId}'`,
            param: 'payment_method',
          },
        },
      };
    }
    const amount = Number(p['amount']);
    const id = this.id('pi');
    const base = {
      id,
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      currency: p['currency'],
      customer: p['customer'],
      description: p['description'] ?? null,
      payment_method: pmId,
      payment_method_types: ['card'],
      capture_method: 'automatic_async',
      confirmation_method: 'automatic',
      client_secret: `${id}_secret_replay`,
      created: now(),
      livemode: false,
      metadata,
      next_action: null,
      last_payment_error: null,
      latest_charge: null,
      setup_future_usage: null,
      status: 'requires_payment_method',
    };
    if (card.outcome === 'succeeded') {
      const pi = { ...base, status: 'succeeded', amount_received: amount, latest_charge: this.id('ch') };
      this.paymentIntents.set(id, pi);
      return { status: 200, body: pi };
    }
    if (card.outcome === 'requires_action') {
      const pi = {
        ...base,
        status: 'requires_action',
        next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} },
      };
      this.paymentIntents.set(id, pi);
      return { status: 200, body: pi };
    }
    const errors: Record<string, { code: string; decline: string; message: string; doc: string }> = {
      card_declined: {
        code: 'card_declined',
        decline: 'generic_decline',
        message: 'Your card was declined.',
        doc: 'https://docs.stripe.com/error-codes/card-declined',
      },
      insufficient_funds: {
        code: 'card_declined',
        decline: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
        doc: 'https://docs.stripe.com/error-codes/card-declined',
      },
      authentication_required: {
        code: 'authentication_required',
        decline: 'authentication_required',
        message: 'Your card was declined. This transaction requires authentication.',
        doc: 'https://docs.stripe.com/error-codes/authentication-required',
      },
    };
    const e = errors[card.outcome] as { code: string; decline: string; message: string; doc: string };
    const lastError = {
      type: 'card_error',
      code: e.code,
      decline_code: e.decline,
      doc_url: e.doc,
      message: e.message,
      payment_method: this.paymentMethod(pmId, p['customer']),
    };
    const pi = { ...base, last_payment_error: lastError, latest_charge: this.id('ch') };
    this.paymentIntents.set(id, pi);
    return {
      status: 402,
      body: {
        error: {
          ...lastError,
          charge: pi.latest_charge,
          payment_intent: pi,
          request_log_url: `https://dashboard.stripe.com/test/logs/req_${this.seq}`,
        },
      },
    };
  }

  /**
   * Complete setup Session `id` with test card `pm` as Stripe's hosted page would: a succeeded SetupIntent on the
   * Session's customer, then the signed `checkout.session.completed` to the webhook. Returns the webhook's answer.
   */
  async completeSetup(id: string, pm: string): Promise<{ status: number; body: string }> {
    const s = this.sessions.get(id);
    if (!s) throw new Error(`no session ${id}`);
    const si = {
      id: this.id('seti'),
      object: 'setup_intent',
      status: 'succeeded',
      usage: 'off_session',
      customer: s['customer'],
      payment_method: pm,
      payment_method_types: ['card'],
      metadata: s['setup_intent_metadata'],
      created: now(),
      livemode: false,
      last_setup_error: null,
      next_action: null,
    };
    this.setupIntents.set(si.id, si);
    const done: Record<string, unknown> = { ...s, status: 'complete', setup_intent: si.id };
    this.sessions.set(id, done);
    const session = { ...done };
    delete session['setup_intent_metadata'];
    return this.deliver('checkout.session.completed', session);
  }

  /** Send a signed event to the webhook (as Stripe would), answering its status and body. */
  async deliver(type: string, object: unknown): Promise<{ status: number; body: string }> {
    if (!this.webhook) throw new Error('no webhook configured');
    const payload = JSON.stringify({
      id: this.id('evt'),
      object: 'event',
      api_version: '2025-10-29.clover',
      created: now(),
      type,
      data: { object },
      livemode: false,
      pending_webhooks: 1,
    });
    const signature = this.signer.webhooks.generateTestHeaderString({ payload, secret: this.webhook.secret });
    const r = await fetch(this.webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body: payload,
    });
    return { status: r.status, body: await r.text() };
  }

  private async hosted(
    method: string,
    id: string,
    params: Record<string, string>,
  ): Promise<{ html: string } | { redirect: string } | Answer> {
    const s = this.sessions.get(id);
    if (!s) return { status: 404, body: { error: 'no such session' } };
    if (method === 'POST') {
      const pm = params['card'] ?? 'pm_card_visa';
      if (!TEST_CARDS[pm]) return { status: 400, body: { error: 'unknown card' } };
      const r = await this.completeSetup(id, pm);
      if (r.status !== 200) return { status: 502, body: { error: 'webhook refused', status: r.status } };
      return { redirect: String(s['success_url']) };
    }
    const options = Object.entries(TEST_CARDS)
      .map(
        ([pm, c]) => `<option value="${esc(pm)}">${esc(c.brand)} •••• ${esc(c.last4)} (${esc(pm)})</option>`,
      )
      .join('');
    return {
      html: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Save a card (Stripe test stand-in)</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Save a card</h1><p>Stand-in for Stripe Checkout (setup mode), test mode.</p>
<form method="post" action="/c/setup/${esc(id)}"><label for="card">Test card</label>
<select id="card" name="card">${options}</select> <button type="submit">Save card</button></form>
<p><a href="${esc(String(s['cancel_url']))}">Cancel</a></p></main></body></html>`,
    };
  }
}

/** Start a stand-in. */
export async function startStripeReplay(): Promise<StripeReplay> {
  return new StripeReplay().start();
}

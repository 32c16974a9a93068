/**
 * Auto top-up in Chromium (Debian's, playwright-core) for rule sets A and B, at 1280 and 375 px, against the real
 * gateway and backend: the credit page's link, a refused "turn on" without a card, saving a card through Stripe
 * Checkout in setup mode, threshold and amount, the charge when the balance is below the threshold, a second crossing
 * made by real API traffic, the receipt on the Billing page, and a card that needs authentication (failure told by
 * e-mail and shown on the page). Stripe cannot be reached here: the library talks to a replay server of Stripe's
 * documented answers (test/helpers/stripe-replay.ts says which documentation each comes from), and the browser's
 * requests to https://checkout.stripe.com are routed to the replay's stand-in hosted page, which completes the
 * SetupIntent and delivers the signed `checkout.session.completed` as Stripe does. No console errors, no horizontal
 * overflow. Screenshots go to test-artifacts/topup/ (copied to docs/screenshots/topup-*.png).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { createDashboard } from '../../../dashboard/app';
import type { DashboardConfig } from '../../../dashboard/config';
import type { AutoTopUps } from '../../../dashboard/payments/auto-topup';
import {
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  watchErrors,
} from '../../helpers/browser';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';
import { useFixture } from '../../helpers/fixture';
import { PEPPER, startGatewayHarness, type Harness } from '../../helpers/gateway-harness';
import { linkIn, startSmtpCapture, type SmtpCapture } from '../../helpers/smtp-capture';
import { startStripeReplay, type StripeReplay } from '../../helpers/stripe-replay';
import { reverseWithKey } from '../harness';

jest.setTimeout(180_000);

const available = hasChromium() || process.env['CI'] === 'true';
const maybe = available ? test : test.skip;
const WEBHOOK_SECRET = 'whsec_walk_topup';

/** Per rule set: the price of a request and the form's threshold and amount (A: EUR; B: credits, 1 per cent). */
const MONEY = {
  A: { price: 1_000, threshold: '1', amount: '1', shownAmount: '€1.00', afterTwo: '€1.90' },
  B: { price: 10, threshold: '100', amount: '100', shownAmount: '100 credits', afterTwo: '190 credits' },
} as const;

interface Walk {
  gateway: Harness;
  backend: BackendProcess;
  smtp: SmtpCapture;
  replay: StripeReplay;
  auto: AutoTopUps;
  dashboardUrl: string;
  close(): Promise<void>;
}

/** Gateway (free allowance 1, priced requests) + dashboard with Stripe over the replay server. */
async function startWalk(policy: 'A' | 'B'): Promise<Walk> {
  const backend = await startBackendProcess();
  const gateway = await startGatewayHarness({
    policy,
    backendUrl: backend.url,
    config: { limits: { freePerDay: 1, pricePerRequest: MONEY[policy].price } },
  });
  const smtp = await startSmtpCapture();
  const replay = await startStripeReplay();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dashboardUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: DashboardConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    publicUrl: dashboardUrl,
    sessionSecret: 'browser-test-session-secret-0123456789',
    smtp: { host: smtp.host, port: smtp.port, secure: false, from: 'no-reply@dash.test' },
    payments: {
      provider: 'stripe',
      stripe: {
        secretKey: 'sk_test_replay_key',
        webhookSecret: WEBHOOK_SECRET,
        priceCurrency: 'eur',
        unitsPerMinorUnit: policy === 'A' ? 100 : 1,
        autoTopUp: { enabled: true, maxFailures: 3, intervalMs: 60_000 },
      },
    },
  };
  const c = gateway.config;
  const dashboard = createDashboard({
    store: gateway.store,
    rules: c.rules,
    pepper: PEPPER,
    clock: gateway.clock,
    logger: pino({ level: 'silent' }),
    config,
    stripe: replay.client(),
  });
  server.on('request', dashboard.app);
  replay.webhook = { url: `${dashboardUrl}/webhooks/stripe`, secret: WEBHOOK_SECRET };
  return {
    gateway,
    backend,
    smtp,
    replay,
    auto: dashboard.autoTopUp as AutoTopUps,
    dashboardUrl,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await replay.close();
      await smtp.close();
      await gateway.close();
      await backend.stop();
    },
  };
}

let browser: Browser;
beforeAll(async () => {
  if (available) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** No horizontal overflow, then a screenshot. */
async function shot(page: Page, name: string): Promise<void> {
  expect({ name, overflow: await horizontalOverflow(page) }).toEqual({ name, overflow: 0 });
  await screenshot(page, 'topup', name);
}

/** Route the browser's Stripe Checkout requests to the replay's stand-in page. */
async function routeCheckout(page: Page, replay: StripeReplay): Promise<void> {
  await page.route('https://checkout.stripe.com/**', async (route) => {
    const req = route.request();
    const url = new URL(req.url());
    const body = req.postData();
    const res = await fetch(`${replay.url}${url.pathname}`, {
      method: req.method(),
      redirect: 'manual',
      headers: { 'content-type': req.headers()['content-type'] ?? 'text/plain' },
      ...(body !== null ? { body } : {}),
    });
    const location = res.headers.get('location');
    await route.fulfill({
      status: res.status,
      headers: {
        'content-type': res.headers.get('content-type') ?? 'text/html',
        ...(location ? { location } : {}),
      },
      body: await res.text(),
    });
  });
}

async function signUp(w: Walk, page: Page, set: 'A' | 'B', email: string): Promise<void> {
  await page.goto('/signup');
  await page.fill('#f-email', email);
  if (set === 'A') {
    await page.fill('#f-name', 'Ada Lovelace');
    await page.fill('#f-password', 'a long browser password');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Welcome!');
    await page.goto(linkIn(await w.smtp.waitFor(email)));
    await page.click('form[action="/verify/email"] button[type=submit]');
    await page.waitForSelector('text=E-mail address confirmed');
  } else {
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your mailbox');
    await page.goto(linkIn(await w.smtp.waitFor(email)));
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Overview")');
  }
}

/** Save test card `pm` on Stripe's (stand-in) hosted page, back on the auto top-up page. */
async function saveCard(page: Page, pm: string): Promise<void> {
  await page.click('form[action="/credit/auto-top-up/card"] button');
  await page.waitForSelector('h1:has-text("Save a card")');
  await page.selectOption('#card', pm);
  await page.click('button[type=submit]');
  await page.waitForSelector('text=Card saved with Stripe.');
}

const text = async (page: Page, sel: string) => ((await page.textContent(sel)) ?? '').replace(/\s+/g, ' ');

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  const w = useFixture(
    `walk topup ${set}`,
    () => startWalk(set),
    (s) => s.close(),
  );
  const m = MONEY[set];

  maybe(
    'auto top-up: a saved card, a threshold, once per crossing, a failure told; 1280 and 375 px',
    async () => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        baseURL: w.dashboardUrl,
      });
      const page = await context.newPage();
      const watch = watchErrors(page);
      await routeCheckout(page, w.replay);
      const email = `topup-${set.toLowerCase()}@example.com`;
      await signUp(w, page, set, email);

      await page.goto('/credit');
      await page.click('[data-auto-topup-link] a');
      await page.waitForSelector('h1:has-text("Auto top-up")');
      expect(await text(page, '[data-auto-topup]')).toContain('Auto top-up is off. To use it: save a card');
      await shot(page, `${set}-off`);

      // Turning it on without a card is refused, the field says why.
      await page.fill('#f-threshold', m.threshold);
      await page.fill('#f-amount', m.amount);
      await page.check('#f-enabled');
      watch.expectStatus('/credit/auto-top-up', 400);
      await page.click('form[action="/credit/auto-top-up"] button[type=submit]');
      await page.waitForSelector('text=Save a card first');
      await shot(page, `${set}-refused-no-card`);

      // The card, on Stripe's (stand-in) page; back here once the signed webhook saved it.
      await saveCard(page, 'pm_card_visa');
      expect(await text(page, '[data-card]')).toContain('visa •••• 4242, expires 12/2034');
      await page.fill('#f-threshold', m.threshold);
      await page.fill('#f-amount', m.amount);
      await page.check('#f-enabled');
      await page.click('form[action="/credit/auto-top-up"] button[type=submit]');
      await page.waitForSelector('text=Auto top-up is on.');
      await shot(page, `${set}-on`);

      // The balance (0) is below the threshold: the sweep charges once, even when run twice at the same time.
      await Promise.all([w.auto.sweep(), w.auto.sweepOnce()]);
      await page.reload();
      expect(await text(page, '[data-balance]')).toBe(m.shownAmount);
      expect(await page.locator('tr[data-attempt="succeeded"]').count()).toBe(1);

      // Real traffic: a key, the free request, then one paid request takes the balance below the threshold again.
      const account = await w.gateway.store.findAccountByEmail(email);
      const { key } = await w.gateway.key(account?.id ?? '');
      expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(200);
      await w.auto.sweepOnce(); // back at the threshold after the charge: the next crossing is armed
      expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(200);
      await w.auto.sweepOnce();
      await w.auto.sweepOnce();
      await page.reload();
      expect(await text(page, '[data-balance]')).toBe(m.afterTwo);
      expect(await page.locator('tr[data-attempt="succeeded"]').count()).toBe(2);
      expect(w.replay.created()).toHaveLength(2);
      await shot(page, `${set}-charged`);

      // Each charge has its receipt, paid by card.
      await page.goto('/billing');
      const receipts = await text(page, 'main');
      expect(receipts.match(/card/gi)?.length ?? 0).toBeGreaterThanOrEqual(2);
      await shot(page, `${set}-billing-receipts`);

      // A card that needs the customer present: the next crossing fails, the page and an e-mail say why.
      await page.goto('/credit/auto-top-up');
      await saveCard(page, 'pm_card_authenticationRequired');
      for (let i = 0; i < 12; i++) {
        const r = await reverseWithKey(w.gateway.mainUrl, key);
        if (r.status !== 200) break;
        await w.auto.sweepOnce();
      }
      await w.auto.sweepOnce();
      await page.reload();
      expect(await text(page, 'tr[data-attempt="failed"]')).toContain(
        'your bank asks you to confirm this payment',
      );
      const failedMail = async () => {
        for (let i = 0; i < 100; i++) {
          const found = w.smtp.messages.find(
            (msg) => msg.to.includes(email) && /Subject: Automatic top-up failed/.test(msg.raw),
          );
          if (found) return found;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('no failure mail');
      };
      expect((await failedMail()).text.replace(/\s+/g, ' ')).toContain(
        'your bank asks you to confirm this payment',
      );
      await shot(page, `${set}-failed`);

      // 375 px: the same page, readable, nothing overflows.
      const phone = await browser.newContext({
        viewport: { width: 375, height: 812 },
        baseURL: w.dashboardUrl,
        storageState: await context.storageState(),
      });
      const small = await phone.newPage();
      const phoneWatch = watchErrors(small);
      await small.goto('/credit/auto-top-up');
      await small.waitForSelector('h1:has-text("Auto top-up")');
      await shot(small, `${set}-phone`);
      await small.goto('/credit');
      await shot(small, `${set}-phone-credit`);
      expect([...watch.errors, ...phoneWatch.errors]).toEqual([]);
      await phone.close();
      await context.close();
    },
  );
});

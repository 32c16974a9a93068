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
import type { Page } from 'playwright-core';
import type { AutoTopUps } from '../../../dashboard/payments/auto-topup';
import type { BackendProcess } from '../../helpers/backend-process';
import { useFixture } from '../../helpers/fixture';
import type { SmtpCapture } from '../../helpers/smtp-capture';
import { startStripeReplay, type StripeReplay } from '../../helpers/stripe-replay';
import { reverseWithKey } from '../harness';
import {
  camera,
  maybe,
  nextMail,
  openPage,
  signUp,
  startGatewayWalk,
  useBackend,
  useBrowser,
  useSmtp,
  type GatewayWalk,
  type RuleSetName,
} from './walk-kit';

jest.setTimeout(180_000);

const WEBHOOK_SECRET = 'whsec_walk_topup';

/** Per rule set: the price of a request and the form's threshold and amount (A: EUR; B: credits, 1 per cent). */
const MONEY = {
  A: { price: 1_000, threshold: '1', amount: '1', shownAmount: '€1.00', afterTwo: '€1.90' },
  B: { price: 10, threshold: '100', amount: '100', shownAmount: '100 credits', afterTwo: '190 credits' },
} as const;

interface Walk extends GatewayWalk {
  replay: StripeReplay;
  auto: AutoTopUps;
}

/** Gateway (free allowance 1, priced requests) + dashboard with Stripe over the replay server (its own per walk). */
async function startWalk(set: RuleSetName, backend: BackendProcess, smtp: SmtpCapture): Promise<Walk> {
  const replay = await startStripeReplay();
  const w = await startGatewayWalk(set, backend, smtp, {
    gateway: { limits: { freePerDay: 1, pricePerRequest: MONEY[set].price } },
    dashboard: () => ({
      payments: {
        provider: 'stripe',
        stripe: {
          secretKey: 'sk_test_replay_key',
          webhookSecret: WEBHOOK_SECRET,
          priceCurrency: 'eur',
          unitsPerMinorUnit: set === 'A' ? 100 : 1,
          autoTopUp: { enabled: true, maxFailures: 3, intervalMs: 60_000 },
        },
      },
    }),
    deps: () => ({ stripe: replay.client() }),
    alongside: [replay],
  });
  replay.webhook = { url: `${w.dashboardUrl}/webhooks/stripe`, secret: WEBHOOK_SECRET };
  return { ...w, replay, auto: w.site.dashboard.autoTopUp as AutoTopUps };
}

const chromium = useBrowser();
const backend = useBackend();
const smtp = useSmtp();
const { shot } = camera('topup');

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
    () => startWalk(set, backend, smtp),
    (s) => s.close(),
  );
  const m = MONEY[set];

  maybe(
    'auto top-up: a saved card, a threshold, once per crossing, a failure told; 1280 and 375 px',
    async () => {
      const desk = await openPage(chromium.browser, 'desk', w.dashboardUrl);
      const { page, watch } = desk;
      await routeCheckout(page, w.replay);
      const email = `topup-${set.toLowerCase()}@example.com`;
      await signUp(page, smtp, set, email);

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
      const seen = smtp.messages.length;
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
      const failedMail = nextMail(smtp, email, seen, (msg) =>
        /Subject: Automatic top-up failed/.test(msg.raw),
      );
      expect((await failedMail).text.replace(/\s+/g, ' ')).toContain(
        'your bank asks you to confirm this payment',
      );
      await shot(page, `${set}-failed`);

      // 375 px: the same page, readable, nothing overflows.
      const phone = await openPage(chromium.browser, 'phone', w.dashboardUrl, desk.ctx);
      const small = phone.page;
      await small.goto('/credit/auto-top-up');
      await small.waitForSelector('h1:has-text("Auto top-up")');
      await shot(small, `${set}-phone`);
      await small.goto('/credit');
      await shot(small, `${set}-phone-credit`);
      expect([...watch.errors, ...phone.watch.errors]).toEqual([]);
      await phone.ctx.close();
      await desk.ctx.close();
    },
  );
});

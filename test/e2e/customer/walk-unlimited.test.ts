/**
 * The paying customer's walk of rule set B's self-serve Unlimited plan in Chromium (Debian's, playwright-core), for
 * rule sets A and B, at 1280 and 375 px, against the real gateway and backend processes on the embedded store. B: a
 * key runs out of its free request, the plan is bought (demo card payment) and the refused key works at once;
 * renewed in crypto through the BTCPay Server stand-in (test/helpers/greenfield-stand-in.ts: BTCPay Server cannot
 * run here, so its documented Greenfield answers and signed webhook deliveries are replayed), the webhook delivered
 * twice extends once; both receipts are on the Billing page. A: the credit page sells packages and offers no plan.
 * No console errors, no horizontal overflow, axe-core WCAG A/AA clean. Screenshots go to test-artifacts/unlimited/
 * (copied to docs/screenshots/unlimited-*.png).
 */
import type { Page } from 'playwright-core';
import type { BackendProcess } from '../../helpers/backend-process';
import { useFixture } from '../../helpers/fixture';
import { deliver, delivery, GreenfieldStandIn, sign } from '../../helpers/greenfield-stand-in';
import type { SmtpCapture } from '../../helpers/smtp-capture';
import { reverseWithKey } from '../harness';
import {
  camera,
  maybe,
  newKey,
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

const DAY = 86_400_000;

interface Walk extends GatewayWalk {
  gf: GreenfieldStandIn;
}

/** Gateway + dashboard (freePerDay 1); B sells the plan at €199.00 for 30 days, by demo card or crypto. */
async function startWalk(set: RuleSetName, backend: BackendProcess, smtp: SmtpCapture): Promise<Walk> {
  const gf = new GreenfieldStandIn();
  await gf.start();
  const w = await startGatewayWalk(set, backend, smtp, {
    gateway: { limits: { freePerDay: 1 }, hosts: [{ name: 'localhost', adapter: 'native' }] },
    dashboard: () => ({
      payments: { provider: 'test', crypto: { provider: 'btcpay', btcpay: gf.config(1) } },
      ...(set === 'B' ? { unlimitedPlan: { price: '199.00', currency: 'EUR', periodDays: 30 } } : {}),
    }),
    alongside: [gf],
  });
  return { ...w, gf };
}

const chromium = useBrowser();
const backend = useBackend();
const smtp = useSmtp();
/** No horizontal overflow, axe-core clean, then a screenshot. */
const { shot, takeViolations } = camera('unlimited', { axe: true });

/** The credit page at 375 px with the session of `page`: no overflow, the plan's prices readable; a screenshot. */
async function phone(w: Walk, page: Page, name: string, paths: [string, string][]): Promise<string[]> {
  const { ctx, page: p, watch } = await openPage(chromium.browser, 'phone', w.dashboardUrl, page.context());
  for (const [path, tag] of paths) {
    await p.goto(path);
    await shot(p, `${name}-phone-${tag}`);
  }
  await ctx.close();
  return watch.errors;
}

describe('rule set B', () => {
  const w = useFixture(
    'unlimited B',
    () => startWalk('B', backend, smtp),
    (s) => s.close(),
  );

  maybe(
    'buy the plan, the refused key works at once; renew in crypto; receipts; 1280 and 375 px',
    async () => {
      const { ctx: context, page, watch } = await openPage(chromium.browser, 'desk', w.dashboardUrl);
      await signUp(page, smtp, 'B', 'una@example.com');
      const key = await newKey(page);
      expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(200);
      expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(429); // free request used, no credits

      await page.goto('/credit');
      expect(await page.textContent('[data-price="plan"] strong')).toBe('€199.00 for 30 days');
      expect(await page.textContent('[data-plan]')).toContain('Your account is on credits');
      expect(await page.innerText('#plan-next')).toContain('Buy 30 days for €199.00');
      await shot(page, 'B-credit-offer');

      // Bought by the demo card provider: recorded at once; the key that was refused works now.
      await page.click('button[data-plan-card]');
      await page.waitForSelector('text=Unlimited plan paid until');
      const account = await w.gateway.store.findAccountByEmail('una@example.com');
      const now = w.gateway.clock.now();
      expect((await w.gateway.store.getAccount(account!.id))?.unlimitedUntil).toBe(now + 30 * DAY);
      expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(200);
      expect((await reverseWithKey(w.gateway.mainUrl, key)).status).toBe(200);
      expect(await page.textContent('[data-plan]')).toContain('Your account is on the Unlimited plan until');
      expect(await page.locator('table.plan-periods tbody tr').count()).toBe(1);
      await shot(page, 'B-credit-bought');

      // Renewed in crypto: the invoice is for the plan's price; settled; delivered twice; one more period, from the end.
      await page.click('button[data-plan-crypto]');
      await page.waitForURL(`${w.gf.url}/i/*`);
      const id = new URL(page.url()).pathname.split('/')[2] ?? '';
      expect(w.gf.invoices.get(id)).toMatchObject({ amount: '199.00', currency: 'EUR' });
      await page.click('#pay');
      await page.waitForSelector('text=Invoice paid');
      const settled = delivery('InvoiceSettled', id);
      expect((await deliver(w.dashboardUrl, settled, sign(settled))).body).toEqual({
        received: true,
        extended: true,
      });
      const again = delivery('InvoiceSettled', id, true);
      expect((await deliver(w.dashboardUrl, again, sign(again))).body).toEqual({
        received: true,
        extended: false,
      });
      await page.click('#return');
      await page.waitForURL(`${w.dashboardUrl}/credit?plan=pending`);
      expect(await page.textContent('main')).toContain('the Unlimited plan is extended when it settles');
      expect((await w.gateway.store.getAccount(account!.id))?.unlimitedUntil).toBe(now + 60 * DAY);
      expect(await page.locator('table.plan-periods tbody tr').count()).toBe(2);
      await shot(page, 'B-credit-renewed');

      // Both receipts: the newest is the crypto one, with its period.
      await page.goto('/billing');
      expect(await page.locator('table.receipts tbody tr').count()).toBe(2);
      const row = page.locator('table.receipts tbody tr').first();
      expect(await row.locator('[data-method]').getAttribute('data-method')).toBe('crypto');
      await shot(page, 'B-billing');
      const number = (await row.getAttribute('data-receipt')) ?? '';
      await row.locator(`a[href="/receipts/${number}"]`).click();
      await page.waitForSelector('[data-receipt-number]');
      const main = (await page.textContent('main')) ?? '';
      for (const t of ['Unlimited plan, 30 days', 'Crypto (BTCPay Server)', '€199.00', 'Period'])
        expect(main).toContain(t);
      await shot(page, 'B-receipt');

      const phoneErrors = await phone(w, page, 'B', [
        ['/credit', 'credit'],
        [`/receipts/${number}`, 'receipt'],
      ]);
      await context.close();
      expect([...watch.errors, ...phoneErrors]).toEqual([]);
      expect(takeViolations()).toEqual([]);
    },
  );
});

describe('rule set A', () => {
  const w = useFixture(
    'unlimited A',
    () => startWalk('A', backend, smtp),
    (s) => s.close(),
  );

  maybe('the credit page sells packages, not a plan; 1280 and 375 px', async () => {
    const { ctx: context, page, watch } = await openPage(chromium.browser, 'desk', w.dashboardUrl);
    await signUp(page, smtp, 'A', 'ada@example.com');
    await page.goto('/credit');
    expect(await page.textContent('[data-price="package"]')).toContain('per calendar month');
    expect(await page.locator('form[action="/unlimited"]').count()).toBe(0);
    expect(await page.textContent('main')).toContain('Buy Unlimited package');
    await shot(page, 'A-credit-packages');
    const phoneErrors = await phone(w, page, 'A', [['/credit', 'credit']]);
    await context.close();
    expect([...watch.errors, ...phoneErrors]).toEqual([]);
    expect(takeViolations()).toEqual([]);
  });
});

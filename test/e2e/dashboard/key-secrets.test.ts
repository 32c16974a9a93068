/**
 * Test keys (D40) and rotation (D39) in the browser, both rule sets, Playwright on Debian's Chromium against the real
 * gateway: the customer creates a test key with the keys page's Test key box, sees it shown once with what it answers
 * and badged in the list; the gateway answers it (a 402 rehearsed, a canned success) without counting; the customer
 * rotates a live key with a 24-hour overlap and gets the new secret once, both secrets working, then gives it an end
 * date. At 1280 and 375 px:
 * no horizontal overflow, no console errors, 0 axe A/AA violations; screenshots to test-artifacts/dashboard/.
 */
import type { Browser, Page } from 'playwright-core';
import { hashKey } from '../../../gateway/core/keys';
import { axeViolations } from '../../helpers/axe';
import {
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  watchErrors,
} from '../../helpers/browser';
import { linkIn, verifyByMailedLink } from '../../helpers/smtp-capture';
import { useStack, type Stack } from '../harness';

jest.setTimeout(180_000);

const available = hasChromium() || process.env['CI'] === 'true';
if (!hasChromium()) console.warn('key browser tests skipped: /usr/bin/chromium is not installed');
const maybe = available ? describe : describe.skip;

let browser: Browser;
beforeAll(async () => {
  if (available) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

const a11y: string[] = [];
async function shot(page: Page, name: string): Promise<void> {
  a11y.push(...(await axeViolations(page)));
  expect(await horizontalOverflow(page)).toBe(0);
  await screenshot(page, 'dashboard', name);
}

/** Sign up (A: the form; B: the e-mailed link). */
async function signUp(stack: Stack, page: Page, set: 'A' | 'B'): Promise<void> {
  const email = `keys-${set.toLowerCase()}@example.com`;
  await page.goto('/signup');
  await page.fill('#f-email', email);
  if (set === 'A') {
    await page.fill('#f-name', 'Key Tester');
    await page.fill('#f-password', 'a long browser password');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Welcome!');
    await verifyByMailedLink(page, stack.smtp, email);
  } else {
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your mailbox');
    await page.goto(linkIn(await stack.smtp.waitFor(email)));
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Overview")');
  }
}

/** Create a key from the keys page (a test key with `test`); the key shown once. */
async function createKey(page: Page, label: string, test: boolean): Promise<string> {
  await page.goto('/keys');
  await page.fill('#f-label', label);
  if (test) await page.check('#f-test');
  await page.click('form[action="/keys"] button[type=submit]');
  await page.waitForSelector('#new-key');
  return page.inputValue('#new-key');
}

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  maybe('test keys and rotation in the browser', () => {
    const stack = useStack(set);
    const reverse = (key: string, scenario?: string) =>
      fetch(
        `${stack.gateway.mainUrl}/v1/reverse?lat=48.8584&lon=2.2945${scenario ? `&scenario=${scenario}` : ''}`,
        {
          headers: { 'x-api-key': key },
        },
      );

    test('a test key is created, shown with its scenarios, badged, answered uncounted; a live key is rotated', async () => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        baseURL: stack.dashboardUrl,
      });
      const page = await context.newPage();
      const watch = watchErrors(page);
      await signUp(stack, page, set);

      const testKey = await createKey(page, 'ci', true);
      expect(testKey).toMatch(/^gk_test_/);
      await page.waitForSelector('text=This is a test key');
      await shot(page, `${set}-test-key-created`);
      const rehearsed = await reverse(testKey, '402');
      expect(rehearsed.status).toBe(402);
      expect(((await rehearsed.json()) as { code: string }).code).toBe('no_credits');
      expect((await reverse(testKey)).status).toBe(200);
      const found = await stack.gateway.store.findKeyByHash(hashKey(testKey, stack.gateway.config.keyPepper));
      const day = new Date(stack.gateway.clock.now()).toISOString().slice(0, 10);
      expect(await stack.gateway.store.usage([`key:${found?.key.id ?? ''}`], day, day)).toEqual([]);

      const liveKey = await createKey(page, 'prod', false);
      await page.click('text=I have stored it safely');
      await page.waitForSelector('#rotate');
      const keyPath = new URL(page.url()).pathname;
      await page.goto('/keys');
      await page.waitForSelector('.badge.test');
      await shot(page, `${set}-keys-test-badge`);

      await page.goto(keyPath);
      await page.selectOption('#f-overlap', '86400');
      await page.click('form[action$="/rotate"] button[type=submit]');
      await page.waitForSelector('#new-key');
      const fresh = await page.inputValue('#new-key');
      expect(fresh).not.toBe(liveKey);
      await page.waitForSelector('text=The previous secret keeps working until');
      await shot(page, `${set}-key-rotated`);
      expect((await reverse(fresh)).status).toBe(200);
      expect((await reverse(liveKey)).status).toBe(200);

      // An end date (D39): set on the key page, shown there, stored as the end of that UTC day; the key still works.
      const lastDay = new Date(stack.gateway.clock.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      await page.goto(keyPath);
      await page.fill('#f-expires', lastDay);
      await page.click('form[action$="/expiry"] button[type=submit]:not([name])');
      await page.waitForSelector('text=This key stops working at');
      await page.locator('#expiry').scrollIntoViewIfNeeded();
      await shot(page, `${set}-key-end-date`);
      const ending = await stack.gateway.store.findKeyByHash(hashKey(fresh, stack.gateway.config.keyPepper));
      expect(ending?.key.expiresAt).toBe(Date.parse(`${lastDay}T00:00:00Z`) + 86_400_000);
      expect((await reverse(fresh)).status).toBe(200);

      // Phone width: the keys list with the badge and the key page's rotate card.
      const phone = await browser.newContext({
        viewport: { width: 375, height: 812 },
        baseURL: stack.dashboardUrl,
      });
      await phone.addCookies(await context.cookies());
      const small = await phone.newPage();
      const phoneWatch = watchErrors(small);
      await small.goto('/keys');
      await small.waitForSelector('.badge.test');
      await shot(small, `${set}-phone-keys-test-badge`);
      await small.goto(keyPath);
      await small.locator('#rotate').scrollIntoViewIfNeeded();
      await small.waitForSelector('text=The previous secret works until');
      await shot(small, `${set}-phone-key-rotate`);
      await small.locator('#expiry').scrollIntoViewIfNeeded();
      await small.waitForSelector('text=This key stops working at');
      await shot(small, `${set}-phone-key-end-date`);
      await phone.close();
      await context.close();

      expect([...watch.errors, ...phoneWatch.errors]).toEqual([]);
      expect(a11y.splice(0)).toEqual([]);
    });
  });
});

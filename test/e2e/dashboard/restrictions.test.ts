/**
 * Key restrictions in the browser (issue 15 item 4, D29), both rule sets, Playwright on Debian's Chromium against the
 * real gateway and backend: the customer sets a key's allowed web page and addresses in the editor and uses the live
 * tester; then a real page served from the allowed origin calls the gateway with the key (a CORS request with the
 * key in X-API-Key, so with a preflight) and is served, while the same page from another origin is refused 403
 * key_restricted, and the refused request changed no usage counter. 0 axe A/AA violations, no console errors on the
 * dashboard. Screenshots of the editor at 1280 and 375 px go to test-artifacts/dashboard/.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from '../../helpers/axe';
import { linkIn, verifyByMailedLink } from '../../helpers/smtp-capture';
import {
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  watchErrors,
} from '../../helpers/browser';
import { useStack, type Stack } from '../harness';

jest.setTimeout(120_000);

const available = hasChromium() || process.env['CI'] === 'true';
if (!hasChromium()) console.warn('restriction browser tests skipped: /usr/bin/chromium is not installed');
const maybe = available ? describe : describe.skip;

let browser: Browser;
/** The customer's web app: one page that calls the gateway from the browser with the key. */
let app: http.Server;
let appPort = 0;
beforeAll(async () => {
  if (!available) return;
  browser = await launchChromium();
  app = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const gateway = u.searchParams.get('gateway') ?? '';
    const key = u.searchParams.get('key') ?? '';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Map app</title></head><body><main><h1>Map app</h1>
<output id="result">pending</output>
<script>
fetch(${JSON.stringify(gateway)} + '/v1/reverse?lat=40.7580&lon=-73.9855', { headers: { 'X-API-Key': ${JSON.stringify(key)} } })
  .then(function (r) { return r.json().then(function (b) { return r.status + ' ' + (b.code || b.display_name || b.name || 'ok'); }); })
  .then(function (t) { document.getElementById('result').textContent = t; },
        function (e) { document.getElementById('result').textContent = 'failed ' + e; });
</script></main></body></html>`);
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appPort = (app.address() as AddressInfo).port;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (app ? app.close(resolve) : resolve(undefined)));
});

const a11y: string[] = [];
async function shot(page: Page, name: string): Promise<void> {
  a11y.push(...(await axeViolations(page)));
  await screenshot(page, 'dashboard', name);
}

/** Sign up (A: the form; B: the e-mailed link) and create a key; the key, its id and the key page's path. */
async function signUpWithKey(stack: Stack, page: Page, set: 'A' | 'B') {
  const email = `web-${set.toLowerCase()}@example.com`;
  if (set === 'A') {
    await page.goto('/signup');
    await page.fill('#f-email', email);
    await page.fill('#f-name', 'Web Developer');
    await page.fill('#f-password', 'a long browser password');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Welcome!');
    await verifyByMailedLink(page, stack.smtp, email);
  } else {
    await page.goto('/signup');
    await page.fill('#f-email', email);
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your mailbox');
    await page.goto(linkIn(await stack.smtp.waitFor(email)));
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Overview")');
  }
  await page.goto('/keys');
  await page.fill('#f-label', 'map app');
  await page.click('form[action="/keys"] button[type=submit]');
  await page.waitForSelector('#new-key');
  const key = await page.inputValue('#new-key');
  await page.click('text=I have stored it safely');
  await page.waitForSelector('#restrictions');
  const path = new URL(page.url()).pathname;
  return { key, keyId: path.split('/')[2] as string, path };
}

/** Type into a field and wait for the tester's verdict to contain `text`. */
async function expectVerdict(
  page: Page,
  input: string,
  value: string,
  verdict: 'page' | 'address',
  text: string,
) {
  await page.fill(input, value);
  // A locator, not an evaluated string: the dashboard's CSP (script-src 'self') refuses eval.
  await page.locator(`[data-verdict="${verdict}"]`, { hasText: text }).waitFor();
}

/** Open the customer's web page at `origin` in a fresh context; the text its gateway call wrote. */
async function callFromPage(
  stack: Stack,
  origin: string,
  key: string,
): Promise<{ text: string; errors: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const watch = watchErrors(page);
  const q = new URLSearchParams({ gateway: stack.gateway.mainUrl, key });
  await page.goto(`${origin}/app.html?${q.toString()}`);
  await page.waitForFunction(`document.getElementById('result').textContent !== 'pending'`);
  const text = (await page.textContent('#result')) ?? '';
  await context.close();
  return { text, errors: watch.errors };
}

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  maybe('key restrictions in the browser', () => {
    const stack = useStack(set);

    test('editor and live tester; allowed origin served, other origin refused 403 key_restricted and not counted', async () => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        baseURL: stack.dashboardUrl,
      });
      const page = await context.newPage();
      const watch = watchErrors(page);
      const { key, keyId, path } = await signUpWithKey(stack, page, set);
      const allowed = `http://localhost:${appPort}`;
      const other = `http://127.0.0.1:${appPort}`;

      // The tester answers as the rules are typed, with the gateway's own matching (a typo is named by its line).
      await page.fill('#r-referrers', `localhost:${appPort}\nhttps://*.example.com\nexa mple.org`);
      await page.fill('#r-cidrs', '127.0.0.0/8\n2001:db8::/32');
      await page.waitForSelector('[data-line-errors="referrers"] li');
      expect(await page.textContent('[data-line-errors="referrers"]')).toContain(
        'Line 3: must not contain spaces',
      );
      await page.fill('#r-referrers', `localhost:${appPort}\nhttps://*.example.com`);
      await page.waitForSelector('[data-line-errors="referrers"]:empty', { state: 'attached' });
      await expectVerdict(page, '#t-page', `${allowed}/app.html`, 'page', `pattern 1, localhost:${appPort}`);
      await expectVerdict(
        page,
        '#t-page',
        'https://maps.example.com',
        'page',
        'pattern 2, https://*.example.com',
      );
      await expectVerdict(page, '#t-page', other, 'page', 'No pattern matches');
      expect(await page.getAttribute('[data-verdict="page"]', 'class')).toContain('refused');
      await expectVerdict(page, '#t-address', '2001:db8:5::1', 'address', 'block 2, 2001:db8::/32');
      await expectVerdict(page, '#t-address', '127.0.0.1', 'address', 'block 1, 127.0.0.0/8');
      await page.fill('#t-page', `${allowed}/app.html`);
      await page.waitForSelector('[data-verdict="page"].allowed');
      await page.click('form[data-restrictions] button[type=submit]');
      await page.waitForSelector('text=Restrictions saved.');
      expect(await stack.gateway.store.getKey(keyId)).toMatchObject({
        restrictions: {
          referrers: [`localhost:${appPort}`, 'https://*.example.com'],
          cidrs: ['127.0.0.0/8', '2001:db8::/32'],
        },
      });
      await page.fill('#t-page', `${allowed}/app.html`);
      await page.fill('#t-address', '127.0.0.1');
      await page.waitForSelector('[data-verdict="address"].allowed');
      await page.waitForSelector('[data-verdict="page"].allowed');
      await page.locator('#restrictions').scrollIntoViewIfNeeded();
      await shot(page, `${set}-key-restrictions`);

      // A real browser page on the allowed origin calls the gateway with the key (CORS, preflight for X-API-Key).
      const day = new Date(stack.gateway.clock.now()).toISOString().slice(0, 10);
      const usage = () => stack.gateway.store.usage([`key:${keyId}`], day, day);
      const served = await callFromPage(stack, allowed, key);
      expect(served.text).toMatch(/^200 /);
      expect(served.errors).toEqual([]);
      const afterServed = await usage();
      expect(afterServed).toEqual([expect.objectContaining({ free: 1, refused: 0 })]);

      // The same page from another origin: refused, readable by the page (CORS headers on the refusal), not counted.
      const refused = await callFromPage(stack, other, key);
      expect(refused.text).toBe('403 key_restricted');
      expect(refused.errors).toHaveLength(1); // Chromium's own "Failed to load resource: 403" line on that page
      expect(refused.errors[0]).toContain('status of 403');
      expect(await usage()).toEqual(afterServed);

      // The address rule: a block the caller is not in refuses the allowed page too; effective at once.
      await page.fill('#r-cidrs', '203.0.113.0/24');
      await page.click('form[data-restrictions] button[type=submit]');
      await page.waitForSelector('text=Restrictions saved.');
      expect((await callFromPage(stack, allowed, key)).text).toBe('403 key_restricted');
      expect(await usage()).toEqual(afterServed);

      // Phone width: no overflow, screenshot of the editor.
      const phone = await browser.newContext({
        viewport: { width: 375, height: 812 },
        baseURL: stack.dashboardUrl,
      });
      await phone.addCookies(await context.cookies());
      const small = await phone.newPage();
      const phoneWatch = watchErrors(small);
      await small.goto(path);
      await small.fill('#t-page', 'https://maps.example.com/route');
      await small.waitForSelector('[data-verdict="page"].allowed');
      await small.fill('#t-address', '198.51.100.4');
      await small.waitForSelector('[data-verdict="address"].refused');
      expect(await horizontalOverflow(small)).toBe(0);
      await small.locator('#restrictions').scrollIntoViewIfNeeded();
      await shot(small, `${set}-phone-key-restrictions`);
      await phone.close();
      await context.close();

      expect([...watch.errors, ...phoneWatch.errors]).toEqual([]);
      expect(a11y.splice(0)).toEqual([]);
    });
  });
});

/**
 * Browser walks of billing details, receipts (issue 15 item 3, D31) and the crypto top-up (item 6, D32) on Debian's
 * Chromium, both rule sets, against the real gateway and backend: billing fields with a field error, a top-up (A:
 * test payment and a package; B: crypto through a BTCPay Server stand-in, test/helpers/greenfield-stand-in.ts), the
 * receipt listed and shown, its PDF downloaded and read back with pdf-parse. Every page of ours visited is checked
 * with axe-core (WCAG 2.0/2.1 A and AA: 0 violations) and no console error is allowed. Screenshots at 1280 and
 * 375 px go to test-artifacts/dashboard/ (the ones in docs/screenshots/ are copies).
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { axeViolations } from '../../helpers/axe';
import {
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  watchErrors,
} from '../../helpers/browser';
import { deliver, delivery, GreenfieldStandIn, sign } from '../../helpers/greenfield-stand-in';
import { pdfText } from '../../helpers/pdf-text';
import { linkIn, verifyByMailedLink } from '../../helpers/smtp-capture';
import { useStack, type Stack } from '../harness';

jest.setTimeout(120_000);

const available = hasChromium() || process.env['CI'] === 'true';
if (!hasChromium()) console.warn('receipt browser tests skipped: /usr/bin/chromium is not installed');
const maybe = available ? describe : describe.skip;

let browser: Browser;
beforeAll(async () => {
  if (available) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** axe-core violations of every page of ours the walk checked; each test ends with []. */
const a11y: string[] = [];

/** Check the page with axe-core, then save its screenshot. */
async function shot(page: Page, name: string): Promise<void> {
  a11y.push(...(await axeViolations(page)));
  await screenshot(page, 'dashboard', name);
}

async function open(stack: Stack, viewport = { width: 1280, height: 900 }) {
  const context = await browser.newContext({ viewport, baseURL: stack.dashboardUrl, acceptDownloads: true });
  const page = await context.newPage();
  const watch = watchErrors(page);
  return { context, page, errors: watch.errors, watch };
}

/** Billing details: a bad VAT id is refused next to its field, then good details are saved. */
async function billingDetails(
  page: Page,
  watch: ReturnType<typeof watchErrors>,
  set: 'A' | 'B',
  name: string,
) {
  await page.click('nav a:has-text("Billing")');
  await page.waitForSelector('h1:has-text("Billing")');
  expect(await page.textContent('main')).toContain('No receipts yet');
  await page.fill('#f-billingName', name);
  await page.fill('#f-billingAddress', '12 Analytical Row\nLondon NW1\nUnited Kingdom');
  await page.fill('#f-vatId', '12345');
  watch.expectStatus('/billing', 400);
  await page.click('form[action="/billing"] button[type=submit]');
  await page.waitForSelector('#f-vatId-error');
  expect(await page.textContent('#f-vatId-error')).toContain('country code');
  expect(await page.getAttribute('#f-vatId', 'aria-invalid')).toBe('true');
  // The other fields keep what was typed.
  expect(await page.inputValue('#f-billingName')).toBe(name);
  await shot(page, `${set}-billing-error`);
  await page.fill('#f-vatId', 'gb 123 456 789');
  await page.click('form[action="/billing"] button[type=submit]');
  await page.waitForSelector('text=Billing details saved');
  expect(await page.inputValue('#f-vatId')).toBe('GB123456789');
}

/** The newest receipt on the billing page: its page, then its PDF read back; returns the receipt number. */
async function newestReceipt(
  page: Page,
  set: 'A' | 'B',
  expect_: { amount: string; method: string; name: string; paid?: string },
) {
  await page.goto('/billing');
  const row = page.locator('table.receipts tbody tr').first();
  const number = (await row.getAttribute('data-receipt')) ?? '';
  expect(number).toMatch(/^\d{4}-\d{6}$/);
  expect(await row.locator('[data-method]').getAttribute('data-method')).toBe(expect_.method);
  await shot(page, `${set}-billing`);
  await row.locator(`a[href="/receipts/${number}"]`).click();
  await page.waitForSelector('[data-receipt-number]');
  expect(await page.textContent('[data-receipt-number]')).toBe(number);
  const main = (await page.textContent('main')) ?? '';
  for (const t of [expect_.amount, expect_.name, 'GB123456789', ...(expect_.paid ? [expect_.paid] : [])])
    expect(main).toContain(t);
  await shot(page, `${set}-receipt`);
  // Print-friendly: on paper only the receipt (no navigation, footer or links).
  await page.emulateMedia({ media: 'print' });
  for (const hidden of ['header.top', 'footer.foot', '.receipt-actions'])
    expect(await page.isVisible(hidden)).toBe(false);
  expect(await page.isVisible('article.receipt')).toBe(true);
  await page.emulateMedia({ media: 'screen' });
  expect(await page.isVisible('header.top')).toBe(true);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=Download PDF')]);
  expect(download.suggestedFilename()).toBe(`receipt-${number}.pdf`);
  const bytes = readFileSync(await download.path());
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const text = await pdfText(bytes);
  for (const t of [number, expect_.amount, expect_.name, ...(expect_.paid ? [expect_.paid] : [])])
    expect(text).toContain(t);
  return number;
}

/** The new pages at phone width: nothing overflows; screenshots. */
async function phone(
  stack: Stack,
  cookies: Parameters<import('playwright-core').BrowserContext['addCookies']>[0],
  set: 'A' | 'B',
  number: string,
) {
  const p = await open(stack, { width: 375, height: 812 });
  await p.context.addCookies(cookies);
  for (const [path, name] of [
    ['/billing', 'billing'],
    [`/receipts/${number}`, 'receipt'],
  ] as const) {
    await p.page.goto(path);
    expect({ path, overflow: await horizontalOverflow(p.page) }).toEqual({ path, overflow: 0 });
    await shot(p.page, `${set}-phone-${name}`);
  }
  await p.context.close();
  return p.errors;
}

maybe('rule set A: billing details, receipts of a top-up and a package', () => {
  const stack = useStack('A');

  test('top up, buy a package, see both receipts, download the PDF; field error; axe 0; no console errors', async () => {
    const { context, page, errors, watch } = await open(stack);
    await page.goto('/signup');
    await page.fill('#f-email', 'ada@example.com');
    await page.fill('#f-name', 'Ada Lovelace');
    await page.fill('#f-password', 'a long browser password');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Welcome!');
    await verifyByMailedLink(page, stack.smtp, 'ada@example.com');
    await billingDetails(page, watch, 'A', 'Lovelace Analytical Ltd');

    await page.goto('/credit');
    expect(await page.textContent('[data-price="request"] strong')).toBe('€0.0001');
    expect(await page.textContent('[data-price="package"] strong')).toBe('€50.00');
    await page.fill('#f-amount', '60');
    await page.click('form[action="/credit/top-up"] button');
    await page.waitForSelector('text=Top-up complete.');
    const topup = await newestReceipt(page, 'A', {
      amount: '€60.00',
      method: 'test',
      name: 'Lovelace Analytical Ltd',
    });

    await page.goto('/credit');
    await page.click('form[action="/packages"] button');
    await page.waitForSelector('#new-key');
    const pkg = await newestReceipt(page, 'A', {
      amount: '€50.00',
      method: 'balance',
      name: 'Lovelace Analytical Ltd',
    });
    expect(Number(pkg.slice(5))).toBe(Number(topup.slice(5)) + 1);
    expect(await page.textContent('main')).toContain('Unlimited package');

    // Another account cannot open it.
    const other = await browser.newContext({ baseURL: stack.dashboardUrl });
    const op = await other.newPage();
    const otherWatch = watchErrors(op);
    await op.goto('/signup');
    await op.fill('#f-email', 'eve@example.com');
    await op.fill('#f-name', 'Eve');
    await op.fill('#f-password', 'another long password');
    await op.click('button[type=submit]');
    await op.waitForSelector('text=Welcome!');
    otherWatch.expectStatus(`/receipts/${pkg}`, 404);
    const resp = await op.goto(`/receipts/${pkg}`);
    expect(resp?.status()).toBe(404);
    expect(await op.textContent('main')).not.toContain('Lovelace');
    await other.close();

    const phoneErrors = await phone(stack, await context.cookies(), 'A', pkg);
    await context.close();
    expect([...errors, ...otherWatch.errors, ...phoneErrors]).toEqual([]);
    expect(a11y.splice(0)).toEqual([]);
  });
});

maybe('rule set B: crypto top-up through BTCPay Server (stand-in) and its receipt', () => {
  const gf = new GreenfieldStandIn();
  beforeAll(() => gf.start());
  afterAll(() => gf.close());
  const stack = useStack('B', () => ({
    payments: { provider: 'test', crypto: { provider: 'btcpay', btcpay: gf.config(1) } },
  }));

  test('choose an amount, pay in crypto, settle; webhooks twice, early and badly signed credit once; receipt crypto', async () => {
    const { context, page, errors, watch } = await open(stack);
    await page.goto('/signup');
    await page.fill('#f-email', 'bea@example.com');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Check your mailbox');
    await page.goto(linkIn(await stack.smtp.waitFor('bea@example.com')));
    await page.click('button[type=submit]');
    await page.waitForSelector('h1:has-text("Overview")');
    await billingDetails(page, watch, 'B', 'Bea Byte GmbH');

    await page.goto('/credit');
    expect(await page.textContent('[data-price="request"] strong')).toBe('1 credit');
    expect(await page.textContent('[data-price="crypto-credit"] strong')).toBe('€0.01');
    expect(await page.textContent('[data-price="plan"]')).toContain('priced on request');
    await shot(page, 'B-credit-crypto');
    await page.fill('#f-amount', '500');
    await page.click('button[data-crypto]');
    // Redirected to the stand-in's checkout page for this invoice.
    await page.waitForURL(`${gf.url}/i/*`);
    const id = new URL(page.url()).pathname.split('/')[2] ?? '';
    expect(gf.invoices.get(id)).toMatchObject({ amount: '5.00', currency: 'EUR', status: 'New' });
    expect(await page.textContent('h1')).toBe('Pay 5.00 EUR');

    // Out of order: BTCPay reports "settled" before the invoice is (read back: New) → nothing credited.
    const early = delivery('InvoiceSettled', id);
    expect((await deliver(stack.dashboardUrl, early, sign(early))).body).toEqual({
      received: true,
      credited: false,
    });

    await page.click('#pay');
    await page.waitForSelector('text=Invoice paid');
    expect(gf.invoices.get(id)?.['status']).toBe('Settled');
    const settled = delivery('InvoiceSettled', id);
    // A bad signature, and none: refused, nothing credited.
    expect((await deliver(stack.dashboardUrl, settled, sign(settled, 'not-the-secret'))).status).toBe(400);
    expect((await deliver(stack.dashboardUrl, settled, null)).status).toBe(400);
    const account = await stack.gateway.store.findAccountByEmail('bea@example.com');
    expect((await stack.gateway.store.getAccount(account!.id))?.balance).toBe(0);
    // Delivered twice (and once more as a redelivery): credited once.
    expect((await deliver(stack.dashboardUrl, settled, sign(settled))).body).toEqual({
      received: true,
      credited: true,
    });
    expect((await deliver(stack.dashboardUrl, settled, sign(settled))).body).toEqual({
      received: true,
      credited: false,
    });
    const again = delivery('InvoiceSettled', id, true);
    expect((await deliver(stack.dashboardUrl, again, sign(again))).body).toEqual({
      received: true,
      credited: false,
    });
    // A late event of an earlier stage after the settlement: ignored.
    const late = delivery('InvoiceProcessing', id);
    expect((await deliver(stack.dashboardUrl, late, sign(late))).body).toMatchObject({
      ignored: 'InvoiceProcessing',
    });

    // Back to the dashboard from the checkout.
    await page.click('#return');
    await page.waitForURL(`${stack.dashboardUrl}/credit?topup=pending`);
    expect(await page.textContent('[data-balance]')).toBe('500 credits');
    expect(await page.textContent('table.ledger tbody')).toContain('+500 credits');
    await shot(page, 'B-credit-after-crypto');

    const number = await newestReceipt(page, 'B', {
      amount: '500 credits',
      method: 'crypto',
      name: 'Bea Byte GmbH',
      paid: '€5.00',
    });
    expect(await page.textContent('main')).toContain('Crypto (BTCPay Server)');
    expect(await stack.gateway.store.listReceipts(account!.id, 10)).toHaveLength(1);
    expect((await stack.gateway.store.getAccount(account!.id))?.balance).toBe(500);

    const phoneErrors = await phone(stack, await context.cookies(), 'B', number);
    await context.close();
    expect([...errors, ...phoneErrors]).toEqual([]);
    expect(a11y.splice(0)).toEqual([]);
  });
});

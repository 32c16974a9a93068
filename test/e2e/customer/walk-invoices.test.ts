/**
 * Invoices in Chromium (Debian's, playwright-core) for rule sets A and B, at 1280 and 375 px, on a real dashboard
 * over a real SQLite store with real SMTP for sign-up: the billing country and VAT id (a malformed EU id refused on
 * its field), an invoice with the seller, net, VAT and gross, its PDF, reverse charge for an EU business abroad, and
 * a credit note naming its invoice. Card payments and their refunds need Stripe, which cannot run here: that top-up
 * and its refund are recorded through the store as the Stripe webhooks record them (the refund path's own tests
 * replay Stripe's documented events). No console errors, no horizontal overflow. Screenshots go to
 * test-artifacts/invoices/ (copied to docs/screenshots/invoices-*.png).
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDashboardApp } from '../../../dashboard/app';
import type { DashboardConfig } from '../../../dashboard/config';
import { invoicePolicy } from '../../../dashboard/invoice-config';
import { systemClock } from '../../../gateway/core/clock';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { createStore } from '../../../gateway/store';
import type { Store } from '../../../gateway/store/ports';
import {
  hasChromium,
  horizontalOverflow,
  launchChromium,
  screenshot,
  watchErrors,
} from '../../helpers/browser';
import { useFixture } from '../../helpers/fixture';
import { linkIn, startSmtpCapture, type SmtpCapture } from '../../helpers/smtp-capture';

jest.setTimeout(180_000);

const available = hasChromium() || process.env['CI'] === 'true';
const maybe = available ? test : test.skip;

interface Walk {
  store: Store;
  smtp: SmtpCapture;
  url: string;
  config: DashboardConfig;
  close(): Promise<void>;
}

async function startWalk(set: 'A' | 'B'): Promise<Walk> {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-invoices-'));
  const store = await createStore(
    { kind: 'embedded', path: join(dir, 'store.sqlite') },
    { clock: systemClock },
  );
  const smtp = await startSmtpCapture();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: DashboardConfig = {
    listen: { host: '127.0.0.1', port: 0 },
    publicUrl: url,
    sessionSecret: 'browser-test-session-secret-0123456789',
    smtp: { host: smtp.host, port: smtp.port, secure: false, from: 'no-reply@dash.test' },
    payments: { provider: 'test' },
    productName: 'Atlas Geocoding',
    invoicing: {
      seller: {
        name: 'Atlas Geo GmbH',
        address: 'Hauptstraße 1\n10115 Berlin\nGermany',
        vatId: 'DE123456789',
        country: 'DE',
      },
      taxRates: { DE: 19, FR: 20, AT: 20 },
      reverseCharge: true,
      ...(set === 'B' ? { creditPrice: { currency: 'EUR', creditsPerMinorUnit: 10 } } : {}),
    },
  };
  const app = createDashboardApp({
    store,
    rules: set === 'A' ? RULE_SET_A : RULE_SET_B,
    pepper: 'pepper-for-invoice-walk',
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    config,
  });
  server.on('request', app);
  return {
    store,
    smtp,
    url,
    config,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await smtp.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
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

async function shot(page: Page, name: string): Promise<void> {
  expect({ name, overflow: await horizontalOverflow(page) }).toEqual({ name, overflow: 0 });
  await screenshot(page, 'invoices', name);
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

async function saveBilling(page: Page, f: { name: string; address: string; country: string; vatId: string }) {
  await page.goto('/billing');
  await page.fill('#f-billingName', f.name);
  await page.fill('#f-billingAddress', f.address);
  await page.selectOption('#f-country', f.country);
  await page.fill('#f-vatId', f.vatId);
  await page.click('form[action="/billing"] button[type=submit]');
}

/** A test top-up through the credit page: its receipt number. */
async function topUp(page: Page, amount: string): Promise<string> {
  await page.goto('/credit');
  await page.fill('#f-amount', amount);
  await page.click('form[action="/credit/top-up"] button');
  const done = (await page.textContent('text=Top-up complete.')) ?? '';
  return /Receipt (\d{4}-\d{6})/.exec(done)?.[1] ?? '';
}

const rowText = async (page: Page, label: string): Promise<string> =>
  ((await page.textContent(`[data-row="${label}"]`)) ?? '').trim();

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  const w = useFixture(
    `invoices ${set}`,
    () => startWalk(set),
    (s) => s.close(),
  );

  maybe('billing details, an invoice, reverse charge and a credit note; 1280 and 375 px', async () => {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      baseURL: w.url,
    });
    const page = await context.newPage();
    const watch = watchErrors(page);
    const email = `invoices-${set.toLowerCase()}@example.com`;
    await signUp(w, page, set, email);

    // A malformed German VAT id is refused on its field, nothing saved.
    watch.expectStatus('/billing', 400);
    await saveBilling(page, {
      name: 'Ada Lovelace',
      address: 'Unter den Linden 5\n10117 Berlin',
      country: 'DE',
      vatId: 'DE12345',
    });
    expect(await page.textContent('#f-vatId-error')).toContain('A DE VAT id is DE and 9 digits');
    await shot(page, `${set}-billing-vat-refused`);
    await saveBilling(page, {
      name: 'Ada Lovelace',
      address: 'Unter den Linden 5\n10117 Berlin',
      country: 'DE',
      vatId: '',
    });
    await page.waitForSelector('text=Billing details saved.');
    expect(await page.inputValue('#f-country')).toBe('DE');
    await shot(page, `${set}-billing`);

    // A consumer in Germany: 19 % of 12.34 gross is 1.97, net 10.37 (B: 12,340 credits at 10 credits per cent).
    const number = await topUp(page, set === 'A' ? '12.34' : '12340');
    await page.goto(`/receipts/${number}`);
    expect(await page.textContent('h1')).toBe(`Invoice ${number}`);
    expect(await page.textContent('[data-seller]')).toContain('VAT id: DE123456789');
    expect(await rowText(page, 'Net amount')).toBe('€10.37');
    expect(await rowText(page, 'VAT 19 % (Germany)')).toBe('€1.97');
    expect(((await page.textContent('[data-receipt-total]')) ?? '').trim()).toBe(
      '€12.34 (test, not charged)',
    );
    const pdf = await page.request.get(`/receipts/${number}.pdf`);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    await shot(page, `${set}-invoice`);

    // A French business with a VAT id of valid format: reverse charge.
    await saveBilling(page, {
      name: 'Lovelace SARL',
      address: '5 rue de Rivoli\n75001 Paris',
      country: 'FR',
      vatId: 'FR12345678901',
    });
    await page.waitForSelector('text=Billing details saved.');
    const rc = await topUp(page, set === 'A' ? '50' : '50000');
    await page.goto(`/receipts/${rc}`);
    expect(await rowText(page, 'VAT 0 % (reverse charge)')).toMatch(/^€0\.00/);
    expect(await page.textContent('main')).toContain(
      'Reverse charge: VAT to be accounted for by the recipient',
    );
    await shot(page, `${set}-invoice-reverse-charge`);

    // A card top-up and a partial refund (recorded as the Stripe webhooks record them): a credit note.
    const account = (await w.store.findAccountByEmail(email))!;
    const units = set === 'A' ? 200_000 : 20_000;
    const card = await w.store.creditWithReceipt(account.id, units, 'stripe:cs_walk', Date.now(), {
      method: 'card',
      currency: set === 'A' ? 'EUR' : 'credits',
      paid: { minor: 2000, currency: 'EUR' },
      paymentRef: 'pi_walk',
      invoicing: invoicePolicy(w.config, set === 'A' ? RULE_SET_A : RULE_SET_B),
    });
    const refund = await w.store.refundTopUp(
      { paymentRef: 'pi_walk', claim: 'refund:ch_walk', total: units / 4, eventRef: 'evt_walk' },
      Date.now(),
    );
    const note = refund.creditNote!.number;
    await page.goto(`/receipts/${note}`);
    expect(await page.textContent('h1')).toBe(`Credit note ${note}`);
    expect(await page.textContent('main')).toContain(`Refund of invoice ${card.receipt.number}`);
    // A quarter of 20.00 gross, reverse charge: 5.00 net, 0.00 VAT.
    expect(await rowText(page, 'Net amount credited')).toBe('€5.00');
    expect(((await page.textContent('[data-receipt-total]')) ?? '').trim()).toBe('€5.00');
    await shot(page, `${set}-credit-note`);
    await page.goto('/billing');
    expect(await page.locator(`tr[data-receipt="${note}"]`).count()).toBe(1);
    await shot(page, `${set}-billing-list`);

    // 375 px: the same pages, nothing wider than the screen.
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, baseURL: w.url });
    await phone.addCookies(await context.cookies());
    const p = await phone.newPage();
    const phoneWatch = watchErrors(p);
    for (const [path, name] of [
      ['/billing', 'phone-billing'],
      [`/receipts/${number}`, 'phone-invoice'],
      [`/receipts/${rc}`, 'phone-invoice-reverse-charge'],
      [`/receipts/${note}`, 'phone-credit-note'],
    ] as const) {
      await p.goto(path);
      await shot(p, `${set}-${name}`);
    }
    await phone.close();
    await context.close();
    expect([...watch.errors, ...phoneWatch.errors]).toEqual([]);
  });
});

/**
 * Invoices in Chromium (Debian's, playwright-core) for rule sets A and B, at 1280 and 375 px, on a real dashboard
 * over a real SQLite store with real SMTP for sign-up: the billing country and VAT id (a malformed EU id refused on
 * its field), an invoice with the seller, net, VAT and gross, its PDF, reverse charge for an EU business abroad, and
 * a credit note naming its invoice. Card payments and their refunds need Stripe, which cannot run here: that top-up
 * and its refund are recorded through the store as the Stripe webhooks record them (the refund path's own tests
 * replay Stripe's documented events). No console errors, no horizontal overflow. Screenshots go to
 * test-artifacts/invoices/ (copied to docs/screenshots/invoices-*.png).
 */
import type { Page } from 'playwright-core';
import { invoicePolicy } from '../../../dashboard/invoice-config';
import { systemClock } from '../../../gateway/core/clock';
import { useFixture } from '../../helpers/fixture';
import {
  camera,
  maybe,
  openPage,
  rulesOf,
  signUp,
  startStoreWalk,
  topUp,
  useBrowser,
  useSmtp,
  type RuleSetName,
} from './walk-kit';

jest.setTimeout(180_000);

const chromium = useBrowser();
const smtp = useSmtp();
const { shot } = camera('invoices');

/** The dashboard of `set` on the system clock, invoicing as a German seller (B: credits priced in EUR). */
const startWalk = (set: RuleSetName) =>
  startStoreWalk(set, smtp, systemClock, {
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
  });

async function saveBilling(page: Page, f: { name: string; address: string; country: string; vatId: string }) {
  await page.goto('/billing');
  await page.fill('#f-billingName', f.name);
  await page.fill('#f-billingAddress', f.address);
  await page.selectOption('#f-country', f.country);
  await page.fill('#f-vatId', f.vatId);
  await page.click('form[action="/billing"] button[type=submit]');
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
    const desk = await openPage(chromium.browser, 'desk', w.url);
    const { page, watch } = desk;
    const email = `invoices-${set.toLowerCase()}@example.com`;
    await signUp(page, smtp, set, email);

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
      invoicing: invoicePolicy(w.site.config, rulesOf(set)),
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
    const phone = await openPage(chromium.browser, 'phone', w.url, desk.ctx);
    const p = phone.page;
    for (const [path, name] of [
      ['/billing', 'phone-billing'],
      [`/receipts/${number}`, 'phone-invoice'],
      [`/receipts/${rc}`, 'phone-invoice-reverse-charge'],
      [`/receipts/${note}`, 'phone-credit-note'],
    ] as const) {
      await p.goto(path);
      await shot(p, `${set}-${name}`);
    }
    await phone.ctx.close();
    await desk.ctx.close();
    expect([...watch.errors, ...phone.watch.errors]).toEqual([]);
  });
});

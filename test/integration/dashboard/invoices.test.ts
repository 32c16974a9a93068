/**
 * Invoices on the dashboard, both rule sets: the buyer's country and VAT id on the billing page (EU formats checked,
 * each refusal naming its field), an invoice for a top-up and a package with the seller, net, tax and gross as HTML
 * and as PDF (read back with pdf-parse), reverse charge for an EU business abroad, a credit note of a refund that
 * names its invoice, and a reloaded seller on the invoices issued after (those before keep theirs).
 */
import request from 'supertest';
import { createDashboard } from '../../../dashboard/app';
import type { DashboardConfig } from '../../../dashboard/config';
import { invoicePolicy } from '../../../dashboard/invoice-config';
import { dashboardRestartChanges } from '../../../runtime/server';
import { pdfText } from '../../helpers/pdf-text';
import { BOTH, type Client, type Harness, signedUp, useDashboards } from './fixture';

jest.setTimeout(60_000);

const dash = useDashboards();

const INVOICING: NonNullable<DashboardConfig['invoicing']> = {
  seller: {
    name: 'Atlas Geo GmbH',
    address: 'Hauptstr. 1\n10115 Berlin',
    vatId: 'DE123456789',
    country: 'DE',
  },
  taxRates: { DE: 19, FR: '20' },
  reverseCharge: true,
  creditPrice: { currency: 'EUR', creditsPerMinorUnit: 1 },
};

const topUpId = (html: string): string => /name="topUpId" value="([^"]+)"/.exec(html)?.[1] ?? '';
const receiptIn = (html: string): string => /Receipt (\d{4}-\d{6})/.exec(html)?.[1] ?? '';

/** A test top-up of `amount` (A: EUR; B: credits at 1 credit per cent): its receipt number. */
async function topUp(c: Client, amount: string): Promise<string> {
  const page = await c.get('/credit');
  const r = await c.form('/credit/top-up', { amount, topUpId: topUpId(page.text) });
  expect(r.status).toBe(200);
  return receiptIn(r.text);
}

async function getPdf(h: Harness, c: Client, path: string): Promise<Buffer> {
  const r = await request(h.app)
    .get(path)
    .set('Cookie', [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
  expect(r.status).toBe(200);
  return r.body as Buffer;
}

const text = (html: string): string =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/\s+/g, ' ');

describe.each(BOTH)('invoices, rule set %s', (set) => {
  const amount = set === 'A' ? '12.34' : '1234';

  test('the billing country and VAT id: bad ones refused naming their field; an invoice with net, VAT and gross', async () => {
    const h = await dash(set, { config: { invoicing: INVOICING } });
    const c = await signedUp(h, 'inv@example.com');
    const cases: [Record<string, string>, string, string][] = [
      [{ country: 'XX' }, 'country', 'Choose a country from the list'],
      [{ vatId: 'DE12345' }, 'vatId', 'A DE VAT id is DE and 9 digits'],
      [{ vatId: 'ATU1234' }, 'vatId', 'A AT VAT id is ATU and 8 digits'],
      [
        { country: 'DE', vatId: 'FR12345678901' },
        'vatId',
        'This VAT id is from FR; the country chosen is DE',
      ],
    ];
    for (const [fields, field, message] of cases) {
      const r = await c.form('/billing', {
        billingName: 'Ada',
        billingAddress: '',
        vatId: '',
        country: '',
        ...fields,
      });
      expect({ field, status: r.status }).toEqual({ field, status: 400 });
      expect(r.text).toContain(`id="f-${field}-error"`);
      expect(text(r.text)).toContain(message);
    }
    const id = (await h.store.findAccountByEmail('inv@example.com'))!.id;
    expect(await h.store.getBilling(id)).toEqual({ name: null, address: null, vatId: null });

    const saved = await c.form('/billing', {
      billingName: 'Ada Lovelace',
      billingAddress: '1 Analytical Way\n10117 Berlin',
      country: 'DE',
      vatId: '',
    });
    expect(saved.status).toBe(200);
    expect(saved.text).toMatch(/<option value="DE"\s+selected/);
    const number = await topUp(c, amount);
    const page = await c.get(`/receipts/${number}`);
    expect(page.status).toBe(200);
    const t = text(page.text);
    // 12.34 gross at 19 %: tax 1.97 (1.9703), net 10.37.
    for (const s of [
      `Invoice ${number}`,
      'Atlas Geo GmbH',
      'Hauptstr. 1',
      'VAT id: DE123456789',
      'Ada Lovelace',
      'Germany',
      'Net amount €10.37',
      'VAT 19 % (Germany) €1.97',
      'Total (gross) €12.34 (test, not charged)',
    ])
      expect(t).toContain(s);
    const pdf = await pdfText(await getPdf(h, c, `/receipts/${number}.pdf`));
    for (const s of [
      `Invoice ${number}`,
      'Atlas Geo GmbH',
      'VAT id: DE123456789',
      'Net amount',
      '€10.37',
      'VAT 19 % (Germany)',
      '€1.97',
      '€12.34',
    ])
      expect(pdf).toContain(s);

    // The list names it like any receipt.
    const list = await c.get('/billing');
    expect(list.text).toContain(`href="/receipts/${number}.pdf"`);
  });

  test('reverse charge for an EU business abroad; a package (A) has its invoice too', async () => {
    const h = await dash(set, { config: { invoicing: INVOICING } });
    const c = await signedUp(h, 'rc@example.com');
    const r = await c.form('/billing', {
      billingName: 'Ada SARL',
      billingAddress: '',
      vatId: 'fr 12 345678901',
      country: '',
    });
    expect(r.status).toBe(200);
    const id = (await h.store.findAccountByEmail('rc@example.com'))!.id;
    // The id's country is taken when none was chosen.
    expect(await h.store.getBilling(id)).toEqual({
      name: 'Ada SARL',
      address: null,
      vatId: 'FR12345678901',
      country: 'FR',
    });
    const number = await topUp(c, set === 'A' ? '60' : '6000');
    const t = text((await c.get(`/receipts/${number}`)).text);
    expect(t).toContain('Net amount €60.00');
    expect(t).toContain('VAT 0 % (reverse charge) €0.00');
    expect(t).toContain('Reverse charge: VAT to be accounted for by the recipient');
    expect(await pdfText(await getPdf(h, c, `/receipts/${number}.pdf`))).toContain('Reverse charge');
    if (set === 'A') {
      await c.form('/billing', { billingName: 'Ada', billingAddress: '', vatId: '', country: 'FR' });
      const bought = await c.form('/packages', { label: '' });
      expect(bought.status).toBe(201);
      const pkg = (await h.store.listReceipts(id, 1))[0]!;
      expect(pkg.kind).toBe('package');
      const p = text((await c.get(`/receipts/${pkg.number}`)).text);
      // 50.00 at the French 20 %: 8.33 tax, 41.67 net; settled from the balance.
      expect(p).toContain('Net amount €41.67');
      expect(p).toContain('VAT 20 % (France) €8.33');
      expect(p).toContain('Total (gross) €50.00');
      expect(p).toContain('Settled from the prepaid balance');
    }
  });

  test('a refund gives a credit note naming the invoice, with its share of net, VAT and gross', async () => {
    const h = await dash(set, { config: { invoicing: INVOICING } });
    const c = await signedUp(h, 'cn@example.com');
    await c.form('/billing', { billingName: 'Ada', billingAddress: '', vatId: '', country: 'DE' });
    const id = (await h.store.findAccountByEmail('cn@example.com'))!.id;
    const policy = invoicePolicy(h.deps.config, h.rules);
    const units = set === 'A' ? 100_000 : 1000;
    const top = await h.store.creditWithReceipt(id, units, 'stripe:cs_1', h.clock.now(), {
      method: 'card',
      currency: set === 'A' ? 'EUR' : 'credits',
      paid: { minor: 1000, currency: 'EUR' },
      paymentRef: 'pi_1',
      invoicing: policy,
    });
    const refund = await h.store.refundTopUp(
      { paymentRef: 'pi_1', claim: 'refund:ch_1', total: units / 2, eventRef: 'evt_1' },
      h.clock.now(),
    );
    const note = refund.creditNote!;
    const t = text((await c.get(`/receipts/${note.number}`)).text);
    expect(t).toContain(`Credit note ${note.number}`);
    expect(t).toContain(`Refund of invoice ${top.receipt.number}`);
    // Half of 10.00 gross at 19 %: 5.00 = 4.20 + 0.80.
    expect(t).toContain('Net amount credited €4.20');
    expect(t).toContain('VAT 19 % (Germany) €0.80');
    expect(t).toContain('Total credited (gross) €5.00');
    expect(t).toContain(`This credit note corrects invoice ${top.receipt.number}`);
    const pdf = await pdfText(await getPdf(h, c, `/receipts/${note.number}.pdf`));
    expect(pdf).toContain(`Credit note ${note.number}`);
    expect(pdf).toContain('€4.20');
  });
});

test('a reload takes a new seller for the invoices issued after; one issued before keeps its seller', async () => {
  const h = await dash('A', { config: { invoicing: INVOICING } });
  const d = createDashboard(h.deps);
  h.app = d.app;
  const c = await signedUp(h, 'reload-inv@example.com');
  const first = await topUp(c, '10');
  const next: DashboardConfig = {
    ...h.deps.config,
    invoicing: {
      ...INVOICING,
      seller: { ...INVOICING.seller, name: 'Atlas Geo AG', address: 'Neuer Weg 2\n80331 München' },
    },
  };
  // Changing only the invoicing needs no restart.
  expect(dashboardRestartChanges(h.deps.config, next)).toEqual([]);
  d.reconfigure(next, h.rules);
  const second = await topUp(c, '10');
  expect(text((await c.get(`/receipts/${first}`)).text)).toContain('Atlas Geo GmbH');
  const after = text((await c.get(`/receipts/${second}`)).text);
  expect(after).toContain('Atlas Geo AG');
  expect(after).toContain('Neuer Weg 2');
  // Without the section, receipts are plain receipts again.
  const { invoicing: _none, ...without } = next;
  d.reconfigure(without, h.rules);
  const third = await topUp(c, '10');
  expect(text((await c.get(`/receipts/${third}`)).text)).toContain(`Receipt ${third}`);
});

/**
 * Billing details and receipts (issue 15 item 3, D31), both rule sets: strict billing fields with field errors, a
 * numbered receipt for every paid top-up and package (not for an operator's credit), its HTML page and its PDF
 * (parsed back with pdf-parse), account-scoped (another account's number answers 404).
 */
import request from 'supertest';
import { pdfText } from '../../helpers/pdf-text';
import { BOTH, type Client, type Harness, signedUp, useDashboards } from './fixture';

const dash = useDashboards();

const topUpId = (html: string): string => /name="topUpId" value="([^"]+)"/.exec(html)?.[1] ?? '';

async function testTopUp(c: Client, amount: string): Promise<void> {
  const page = await c.get('/credit');
  const r = await c.form('/credit/top-up', { amount, topUpId: topUpId(page.text) });
  expect(r.status).toBe(200);
  expect(r.text).toMatch(/Top-up complete\. Receipt \d{4}-\d{6} is on the Billing page\./);
}

/** A binary GET with the client's cookies (supertest buffers application/pdf with a parser). */
async function getPdf(h: Harness, c: Client, path: string): Promise<request.Response> {
  return request(h.app)
    .get(path)
    .set('Cookie', [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

describe.each(BOTH)('receipts, rule set %s', (rules) => {
  test('billing fields: each bad value is refused naming its field, nothing saved; good ones are kept', async () => {
    const h = await dash(rules);
    const c = await signedUp(h, 'bill@example.com');
    const page = await c.get('/billing');
    expect(page.status).toBe(200);
    expect(page.text).toContain('No receipts yet');
    const cases: [Record<string, string>, string, string][] = [
      [{ billingName: 'x'.repeat(201) }, 'billingName', 'at most 200 characters'],
      [{ billingName: 'Ada\u0007Ltd' }, 'billingName', 'cannot be printed'],
      [{ billingAddress: '1\n2\n3\n4\n5\n6\n7' }, 'billingAddress', 'at most 6 lines'],
      [{ billingAddress: 'y'.repeat(1001) }, 'billingAddress', 'at most 1000 characters'],
      [{ vatId: '12345' }, 'vatId', 'country code'],
      [{ vatId: 'DE 123 <b>' }, 'vatId', 'country code'],
    ];
    for (const [fields, field, text] of cases) {
      const r = await c.form('/billing', {
        billingName: 'Ada Ltd',
        billingAddress: '',
        vatId: '',
        ...fields,
      });
      expect(r.status).toBe(400);
      expect(r.text).toContain(`id="f-${field}-error"`);
      expect(r.text).toContain(text);
      expect(await h.store.getBilling((await h.store.findAccountByEmail('bill@example.com'))!.id)).toEqual({
        name: null,
        address: null,
        vatId: null,
      });
    }
    const ok = await c.form('/billing', {
      billingName: ' Ada Lovelace Ltd ',
      billingAddress: '12 Analytical Row\r\nLondon NW1\r\nUnited Kingdom',
      vatId: 'gb 123.456.789',
    });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('Billing details saved');
    const id = (await h.store.findAccountByEmail('bill@example.com'))!.id;
    expect(await h.store.getBilling(id)).toEqual({
      name: 'Ada Lovelace Ltd',
      address: '12 Analytical Row\nLondon NW1\nUnited Kingdom',
      vatId: 'GB123456789',
    });
    // One audit line per saved change, naming the fields set but never their values; none for the refusals.
    const audits = h.logs.text
      .split('\n')
      .filter((l) => l.includes('"billing.updated"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actor: 'customer', account: id, fields: 'name,address,vatId' });
    expect(h.logs.text).not.toContain('Analytical Row');
    // The JSON-less form of an outsider: no session, no change.
    const anon = await request(h.app).post('/billing').type('form').send({ billingName: 'Mallory' });
    expect([302, 303, 401, 403]).toContain(anon.status);
    expect((await h.store.getBilling(id)).name).toBe('Ada Lovelace Ltd');
  });

  test('a test top-up has a receipt: listed, viewable, PDF attachment with number, amount and billing name; 404 for others', async () => {
    const h = await dash(rules);
    const c = await signedUp(h, 'payer@example.com');
    await c.form('/billing', {
      billingName: 'Payer GmbH',
      billingAddress: 'Hauptstr. 1\n10115 Berlin',
      vatId: 'DE123456789',
    });
    await testTopUp(c, rules === 'A' ? '12.5' : '1500');
    const id = (await h.store.findAccountByEmail('payer@example.com'))!.id;
    const [receipt] = await h.store.listReceipts(id, 10);
    expect(receipt).toMatchObject({ method: 'test', kind: 'topup', billing: { name: 'Payer GmbH' } });
    const amount = rules === 'A' ? '€12.50' : '1,500 credits';
    expect(h.logs.text).toContain(`"receipt":"${receipt!.number}"`);

    const billing = await c.get('/billing');
    expect(billing.text).toContain(`href="/receipts/${receipt!.number}"`);
    expect(billing.text).toContain(amount);
    const view = await c.get(`/receipts/${receipt!.number}`);
    expect(view.status).toBe(200);
    for (const t of [
      receipt!.number,
      'Payer GmbH',
      'Hauptstr. 1',
      'VAT id: DE123456789',
      amount,
      'Test payment',
    ])
      expect(view.text).toContain(t);

    const pdf = await getPdf(h, c, `/receipts/${receipt!.number}.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toBe(`attachment; filename="receipt-${receipt!.number}.pdf"`);
    const text = await pdfText(pdf.body as Buffer);
    for (const t of [receipt!.number, 'Payer GmbH', amount, 'VAT id: DE123456789']) expect(text).toContain(t);

    // Another account: the same number is not found, page and PDF alike; so is a malformed one.
    const other = await signedUp(h, 'other@example.com');
    expect((await other.get(`/receipts/${receipt!.number}`)).status).toBe(404);
    expect((await getPdf(h, other, `/receipts/${receipt!.number}.pdf`)).status).toBe(404);
    expect((await other.get('/receipts/..%2Fetc')).status).toBe(404);
    expect((await c.get('/receipts/2026-999999')).status).toBe(404);

    // A double submission of one form credits once and has one receipt.
    const page = await c.get('/credit');
    const once = topUpId(page.text);
    await c.form('/credit/top-up', { amount: rules === 'A' ? '1' : '10', topUpId: once });
    await c.form('/credit/top-up', { amount: rules === 'A' ? '1' : '10', topUpId: once });
    expect(await h.store.listReceipts(id, 10)).toHaveLength(2);
  });

  test('receipts beyond a page: "Older receipts" pages through all of them, each once; a bad page is 404', async () => {
    const h = await dash(rules);
    const c = await signedUp(h, 'many@example.com');
    const id = (await h.store.findAccountByEmail('many@example.com'))!.id;
    const input = { method: 'test' as const, currency: rules === 'A' ? 'EUR' : 'credits' };
    const made: string[] = [];
    for (let i = 0; i < 103; i++) {
      made.push((await h.store.creditWithReceipt(id, 1, null, h.clock.now() + i, input)).receipt.number);
    }
    const numbersIn = (text: string): string[] =>
      [...text.matchAll(/<a href="\/receipts\/(\d{4}-\d{6,12})">/g)].map((m) => m[1] as string);
    const first = await c.get('/billing');
    expect(first.status).toBe(200);
    const page1 = numbersIn(first.text);
    expect(page1).toEqual([...made].reverse().slice(0, 100)); // newest first, one full page
    expect(first.text).toContain(`href="/billing?before=${page1[99]}"`);
    expect(first.text).toContain('Older receipts');
    expect(first.text).not.toContain('Newest receipts');
    const second = await c.get(`/billing?before=${page1[99]}`);
    expect(second.status).toBe(200);
    const page2 = numbersIn(second.text);
    expect(page2).toEqual([...made].reverse().slice(100)); // the 3 oldest
    expect(second.text).toContain('href="/billing">Newest receipts');
    expect(second.text).not.toContain('Older receipts');
    expect(new Set([...page1, ...page2]).size).toBe(103);
    // After the oldest: an empty page that says so.
    const none = await c.get(`/billing?before=${made[0]}`);
    expect(none.status).toBe(200);
    expect(none.text).toContain('No older receipts.');
    // Not a receipt number, an unknown one, another account's: 404 like the receipt itself.
    const other = await signedUp(h, 'someone@example.com');
    const otherId = (await h.store.findAccountByEmail('someone@example.com'))!.id;
    const theirs = (await h.store.creditWithReceipt(otherId, 1, null, h.clock.now(), input)).receipt.number;
    for (const bad of ['x', '2026-999999', theirs, '<script>']) {
      expect((await c.get(`/billing?before=${encodeURIComponent(bad)}`)).status).toBe(404);
    }
    expect((await c.get('/billing?before=a&before=b')).status).toBe(404);
    expect((await other.get(`/billing?before=${page1[0]}`)).status).toBe(404);
  });

  test("an operator's credit (admin API path: no payment) is an adjustment without a receipt", async () => {
    const h = await dash(rules);
    await signedUp(h, 'adj@example.com');
    const id = (await h.store.findAccountByEmail('adj@example.com'))!.id;
    const { AccountsService } = await import('../../../gateway/accounts/service');
    const svc = new AccountsService({ store: h.store, rules: h.rules, clock: h.clock, pepper: 'p' });
    const r = await svc.topUp(id, 100, 'op-1');
    expect(r.receipt).toBeUndefined();
    expect(await h.store.listReceipts(id, 10)).toEqual([]);
  });
});

test('rule set A: an Unlimited package purchase has a receipt paid from the balance, with its price', async () => {
  const h = await dash('A');
  const c = await signedUp(h, 'pkg@example.com');
  await c.form('/billing', { billingName: 'Package Buyer SARL', billingAddress: '', vatId: 'FR12345678901' });
  const price = h.rules.limits.packagePrice;
  await testTopUp(c, String(price / 10_000));
  const bought = await c.form('/packages', { label: '' });
  expect(bought.status).toBe(201);
  const id = (await h.store.findAccountByEmail('pkg@example.com'))!.id;
  const [pkg, topup] = await h.store.listReceipts(id, 10);
  expect(pkg).toMatchObject({ kind: 'package', method: 'balance', amount: price, currency: 'EUR' });
  expect(topup).toMatchObject({ kind: 'topup', method: 'test' });
  const view = await c.get(`/receipts/${pkg!.number}`);
  expect(view.text).toContain('Unlimited package');
  expect(view.text).toContain('Paid from the account balance');
  const pdf = await getPdf(h, c, `/receipts/${pkg!.number}.pdf`);
  const text = await pdfText(pdf.body as Buffer);
  expect(text).toContain('Package Buyer SARL');
  expect(text).toContain(pkg!.number);
});

/** Keys, IP slots, whitelist, credit, packages and usage through the pages and the JSON API, on a real store. */
import { utcDay } from '../../../gateway/core/clock';
import { hashKey } from '../../../gateway/core/keys';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { parseCsv } from '../../helpers/csv';
import { Client, PEPPER, signedIn, signedUp, START, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();

/** Admit one request with the key from `member` (the pipeline's plan shape for a keyed request). */
async function useKey(h: Harness, keyId: string, accountId: string, member: string, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) {
    const now = h.clock.now();
    const plan: AdmissionPlan = {
      id: `plan-${keyId}-${member}-${now}-${i}-${Math.random()}`,
      now,
      day: utcDay(now),
      slots: [
        {
          scope: `key:${keyId}`,
          member,
          capacity: 2,
          mode: h.rules.slotMode,
          windowMs: 86_400_000,
          refuse: 'key_ip_limit',
        },
      ],
      free: [{ id: `key:${keyId}`, limit: 2500 }],
      overflow: { kind: 'refuse', code: 'quota_exceeded' },
      usage: [`key:${keyId}`, `account:${accountId}`],
      keyId,
    };
    const r = await h.store.admit(plan);
    if (!r.admitted) throw new Error('not admitted');
  }
}

describe.each([['A'], ['B']] as const)('rule set %s', (set) => {
  beforeEach(async () => {
    h = await dash(set);
  });

  test('creates a key shown once with a copy button, lists it by label and prefix, revokes it after confirmation', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.form('/keys', { label: 'production server' });
    expect(created.status).toBe(201);
    const secret =
      /id="new-key" class="key" readonly value="(gk_[0-9A-Za-z]{49})"/.exec(created.text)?.[1] ?? '';
    expect(secret).not.toBe('');
    expect(created.text).toContain('shown only this once');
    expect(created.text).toContain('data-copy="#new-key"');
    expect(created.headers['cache-control']).toBe('no-store');
    const account = await h.store.findAccountByEmail('kim@example.com');
    const [key] = await h.store.listKeys(account?.id ?? '');
    expect(key?.label).toBe('production server');
    expect((await h.store.findKeyByHash(hashKey(secret, PEPPER)))?.key.id).toBe(key?.id);

    const list = await c.get('/keys');
    expect(list.text).toContain('production server');
    expect(list.text).toContain(`${secret.slice(0, 8)}…`);
    expect(list.text).toContain('Rotating a key');
    const confirm = await c.get(`/keys/${key?.id}/revoke`);
    expect(confirm.text).toContain('This cannot be undone');
    expect((await h.store.getKey(key?.id ?? ''))?.status).toBe('active');
    const revoked = await c.form(`/keys/${key?.id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect((await h.store.getKey(key?.id ?? ''))?.status).toBe('revoked');
    expect((await c.get(`/keys/${key?.id}`)).text).toContain('Revoked');
  });

  test('lists the addresses holding a key’s slots and when each frees (spec 5.5)', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.api('post', '/api/keys', { label: 'srv' });
    expect(created.status).toBe(201);
    const account = await h.store.findAccountByEmail('kim@example.com');
    await useKey(h, created.body.id, account?.id ?? '', '203.0.113.7');
    h.clock.advance(3_600_000);
    await useKey(h, created.body.id, account?.id ?? '', '198.51.100.2');
    const detail = await c.api('get', `/api/keys/${created.body.id}`);
    expect(detail.body.slotCapacity).toBe(2);
    const first = detail.body.slots.find((s: { address: string }) => s.address === '203.0.113.7');
    // A: 24 h after the first request; B: 24 h after last seen (D13) — both the same here (seen once).
    expect(first.freesAt).toBe(new Date(START + 86_400_000).toISOString());
    const page = await c.get(`/keys/${created.body.id}`);
    expect(page.text).toContain('2 of 2 in use');
    expect(page.text).toContain('198.51.100.2');
    expect(page.text).toContain(`datetime="${new Date(START + 3_600_000 + 86_400_000).toISOString()}"`);
  });

  test('tops up with the test provider exactly once per form, and the ledger shows it', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const page = await c.get('/credit');
    const topUpId = /name="topUpId" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const amount = set === 'A' ? '20' : '5000';
    const r = await c.form('/credit/top-up', { amount, topUpId });
    expect(r.status).toBe(200);
    // Issue 15 item 3 changed the text from "20.0000 EUR" / "5000 credits" (money per currency, grouped credits).
    expect(r.text).toContain(set === 'A' ? '<strong data-balance>€20.00</strong>' : '5,000 credits');
    expect((await c.form('/credit/top-up', { amount, topUpId })).status).toBe(200); // double submit
    const account = await h.store.findAccountByEmail('kim@example.com');
    expect(account?.balance).toBe(set === 'A' ? 200_000 : 5000);
    const ledger = await h.store.ledger(account?.id ?? '', 10);
    expect(ledger.map((e) => e.kind)).toEqual(['topup']);
    const api = await c.api('get', '/api/credit');
    expect(api.body.balance).toBe(set === 'A' ? '20.0000' : 5000);
    expect(api.body.ledger).toHaveLength(1);
  });

  test('shows the prices and money per currency: balances to the cent, prices exact, never "0.0000 EUR"', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const account = await h.store.findAccountByEmail('kim@example.com');
    await h.store.credit(account?.id ?? '', set === 'A' ? 123_456 : 1234, null, h.clock.now());
    const page = (await c.get('/credit')).text.replace(/\s+/g, ' ');
    const overview = (await c.get('/')).text.replace(/\s+/g, ' ');
    if (set === 'A') {
      expect(page).toContain('<strong data-balance>€12.34</strong>');
      expect(page).toContain('(exactly €12.3456)');
      expect(page).toContain('<dd data-price="request"> <strong>€0.0001</strong> per request');
      expect(page).toContain('<dd data-price="package"> <strong>€50.00</strong> per calendar month');
      expect(page).toContain('Buy Unlimited package (€50.00)');
      expect(page).toContain('+€12.3456</td>'); // the ledger's top-up, exact
      expect(overview).toContain('<strong>€12.34</strong>');
    } else {
      expect(page).toContain('<strong data-balance>1,234 credits</strong>');
      expect(page).toContain('<dd data-price="request"> <strong>1 credit</strong> per request');
      expect(page).toContain('data-price="plan"');
      expect(page).toContain('+1,234 credits</td>');
      expect(overview).toContain('<strong>1,234 credits</strong>');
    }
    for (const text of [page, overview]) expect(text).not.toMatch(/\d\.\d{4} EUR|0\.0000/);
  });

  test('B: the Unlimited plan shows the price the operator configured, else "priced on request"', async () => {
    if (set === 'A') {
      // A's package price is part of the rule set; a plan price is refused at config load (unit: runtime config).
      const page = (await (await signedUp(h, 'pia@example.com')).get('/credit')).text;
      expect(page).not.toContain('data-price="plan"');
      return;
    }
    const priced = await dash('B', {
      config: { unlimitedPlanPrice: { amount: '199', currency: 'EUR', period: 'month' } },
    });
    const page = (await (await signedUp(priced, 'pia@example.com')).get('/credit')).text.replace(/\s+/g, ' ');
    expect(page).toContain('<dd data-price="plan"> <strong>€199.00</strong> per month: nothing charged');
    expect(page).not.toContain('priced on request');
    const plain = (await (await signedUp(h, 'pia@example.com')).get('/credit')).text.replace(/\s+/g, ' ');
    expect(plain).toContain('priced on request');
  });

  test.each([['0'], ['-5'], ['abc'], ['1.23456']])(
    'refuses the top-up amount %s next to the field',
    async (amount) => {
      const c = await signedUp(h, 'kim@example.com');
      const r = await c.api('post', '/api/credit/top-ups', { amount, idempotencyKey: 'abcdefgh1' });
      expect(r.status).toBe(400);
      expect(r.body.field).toBe('amount');
    },
  );

  test('usage shows today against the allowance, a 30-day chart and the reset time (next 00:00 UTC)', async () => {
    let c = await signedUp(h, 'kim@example.com');
    const created = await c.api('post', '/api/keys', { label: 'srv' });
    const account = await h.store.findAccountByEmail('kim@example.com');
    await useKey(h, created.body.id, account?.id ?? '', '203.0.113.7', 3);
    h.clock.advance(15 * 3_600_000); // 2026-02-01T01:00Z: the next UTC day (the 12 h session has ended)
    c = await signedIn(h, 'kim@example.com');
    await useKey(h, created.body.id, account?.id ?? '', '203.0.113.7', 2);
    await h.store.recordRefusal([`key:${created.body.id}`, `account:${account?.id}`], utcDay(h.clock.now()));
    const r = await c.api('get', `/api/usage?subject=${created.body.id}`);
    expect(r.status).toBe(200);
    expect(r.body.allowance).toBe(2500);
    expect(r.body.today).toEqual({ day: '2026-02-01', free: 2, billed: 0, refused: 1 });
    expect(r.body.days).toHaveLength(30);
    expect(r.body.days[28]).toEqual({ day: '2026-01-31', free: 3, billed: 0, refused: 0 });
    expect(r.body.resetAt).toBe('2026-02-02T00:00:00.000Z');
    const acc = await c.api('get', '/api/usage');
    expect(acc.body.today.free).toBe(2);
    const page = await c.get(`/usage?subject=${created.body.id}`);
    expect(page.text).toContain('<svg');
    expect(page.text).toContain('2026-01-31: 3 free, 0 billed, 0 refused');
    expect(page.text).toContain('datetime="2026-02-02T00:00:00.000Z"');
  });

  test('exports usage as CSV: a download of the 30 days, the key named by its label, escaped (issue 15 item 7)', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.api('post', '/api/keys', { label: '=eu, "main"' });
    const account = await h.store.findAccountByEmail('kim@example.com');
    await useKey(h, created.body.id, account?.id ?? '', '203.0.113.7', 3);
    const page = await c.get(`/usage?subject=${created.body.id}`);
    expect(page.text).toContain(`href="/usage.csv?subject=${created.body.id}"`);
    const r = await c.get(`/usage.csv?subject=${created.body.id}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.headers['content-disposition']).toBe(
      `attachment; filename=usage-${created.body.id}-2026-01-02-to-2026-01-31.csv`,
    );
    const rows = parseCsv(r.text);
    expect(rows).toHaveLength(31);
    expect(rows[30]).toEqual(['2026-01-31', `'=eu, "main"`, '3', '0', '0', '2500']);
    const whole = parseCsv((await c.get('/usage.csv')).text);
    expect(whole[30]).toEqual(['2026-01-31', 'account', '3', '0', '0', '2500']);
    // Another account's key is not found; signed out, the link leads to sign-in.
    const other = await signedUp(h, 'lee@example.com');
    expect((await other.get(`/usage.csv?subject=${created.body.id}`)).status).toBe(404);
    const anonymous = await new Client(h.app).get('/usage.csv');
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers['location']).toBe('/signin');
  });
});

describe('rule set A packages', () => {
  beforeEach(async () => {
    h = await dash('A');
  });

  test('buys an Unlimited package from the balance: its key shown once, valid one calendar month (D17)', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const poor = await c.form('/packages', {});
    expect(poor.status).toBe(402);
    expect(poor.text).toContain('The package costs €50.00; your balance is €0.00.'); // was 50.0000 EUR
    const account = await h.store.findAccountByEmail('kim@example.com');
    await h.store.credit(account?.id ?? '', 600_000, null, h.clock.now());
    const r = await c.form('/packages', {});
    expect(r.status).toBe(201);
    expect(r.text).toMatch(/value="gk_[0-9A-Za-z]{49}"/);
    expect(r.text).toContain('datetime="2026-02-28T10:00:00.000Z"');
    const after = await h.store.getAccount(account?.id ?? '');
    expect(after?.balance).toBe(100_000);
    const ledger = await h.store.ledger(account?.id ?? '', 10);
    expect(ledger[0]?.kind).toBe('package');
    expect(ledger[0]?.amount).toBe(-500_000);
    const credit = await c.get('/credit');
    expect(credit.text).toContain('Unlimited until 2026-02-28');
    const keys = await c.api('get', '/api/keys');
    expect(keys.body.keys[0].kind).toBe('unlimited');
  });

  test('a key without a label is refused next to the label field (A: a label is set on each key)', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const r = await c.form('/keys', { label: '  ' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('id="f-label-error"');
    expect((await c.api('post', '/api/keys', {})).body.field).toBe('label');
  });

  test('the whitelist does not exist in rule set A', async () => {
    const c = await signedUp(h, 'kim@example.com');
    expect((await c.api('get', '/api/whitelist')).status).toBe(404);
    expect((await c.get('/keys')).text).not.toContain('href="/whitelist"');
  });
});

describe('rule set B whitelist and plan', () => {
  beforeEach(async () => {
    h = await dash('B');
  });

  test.each([
    ['10.0.0.1', 'private'],
    ['2001:db8::/48', 'prefix length between 64 and 128'],
    ['not an address', 'not an IPv4 or IPv6'],
    ['203.0.113.0/24', 'single address'],
  ])('refuses %s with the error next to the field (D18)', async (address, text) => {
    const c = await signedUp(h, 'kim@example.com');
    const r = await c.form('/whitelist', { address });
    expect(r.status).toBe(400);
    expect(r.text).toContain('id="f-address-error"');
    expect(r.text).toContain(text);
  });

  test('adds and removes IPv4 and IPv6 entries; an overlap with another account is refused without naming it', async () => {
    const other = await signedUp(h, 'other@example.com');
    expect((await other.api('post', '/api/whitelist', { address: '2001:db8:1:2::/64' })).status).toBe(201);
    const c = await signedUp(h, 'kim@example.com');
    const v4 = await c.form('/whitelist', { address: '203.0.113.7' });
    expect(v4.status).toBe(201);
    expect(v4.text).toContain('203.0.113.7/32');
    const v6 = await c.api('post', '/api/whitelist', { address: '2001:db8:9:9::1/64' });
    expect(v6.body.address).toBe('2001:db8:9:9::/64');
    const overlap = await c.form('/whitelist', { address: '2001:db8:1:2::7' });
    expect(overlap.status).toBe(409);
    expect(overlap.text).toContain('already on another account&#39;s whitelist');
    expect(overlap.text).not.toContain('other@example.com');
    const list = await c.api('get', '/api/whitelist');
    expect(list.body.entries).toHaveLength(2);
    const removed = await c.form(`/whitelist/${v6.body.id}/delete`, {});
    expect(removed.status).toBe(200);
    expect((await c.api('get', '/api/whitelist')).body.entries).toHaveLength(1);
  });

  test('shows the Unlimited plan and its end date; packages are not sold (D17)', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const account = await h.store.findAccountByEmail('kim@example.com');
    await h.store.setUnlimitedUntil(account?.id ?? '', Date.parse('2026-03-01T00:00:00Z'));
    const page = await c.get('/credit');
    expect(page.text).toContain('Unlimited plan until');
    expect(page.text).toContain('datetime="2026-03-01T00:00:00.000Z"');
    expect((await c.api('post', '/api/packages', {})).status).toBe(404);
  });
});

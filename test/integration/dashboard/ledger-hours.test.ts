/** The credit page and GET /api/credit show charges as hourly ledger rows (D35): key, UTC hour, requests, amount. */
import { utcDay } from '../../../gateway/core/clock';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { signedUp, START, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();

/** `n` billed requests at `now`, charged `price` units each, with the key (or a whitelisted address: no key). */
async function billed(accountId: string, keyId: string | null, n: number, now: number, price: number) {
  for (let i = 0; i < n; i++) {
    const plan: AdmissionPlan = {
      id: `plan-${keyId}-${now}-${i}-${Math.random()}`,
      now,
      day: utcDay(now),
      slots: [],
      free: [{ id: `key:${keyId ?? accountId}`, limit: 0 }],
      overflow: { kind: 'bill', accountId, price, refuse: 'no_credits' },
      usage: [],
      keyId,
    };
    const r = await h.store.admit(plan);
    if (!r.admitted) throw new Error('not admitted');
    await h.store.keep(r.ticket);
  }
}

describe.each([['A'], ['B']] as const)('rule set %s', (set) => {
  test('one row per key and hour: "key prod, 14:00–15:00 UTC, 3 requests" and the amount, exact', async () => {
    h = await dash(set);
    const c = await signedUp(h, 'hours@example.com');
    await c.form('/keys', { label: 'prod' });
    const account = await h.store.findAccountByEmail('hours@example.com');
    const id = account?.id ?? '';
    const [key] = await h.store.listKeys(id);
    await h.store.credit(id, 100_000, null, START);
    const at14 = START + 4 * 3_600_000 + 60_000; // 14:01 UTC
    await billed(id, key?.id ?? '', 3, at14, 1_234);
    await billed(id, key?.id ?? '', 1, at14 + 3_600_000, 1_234); // 15:01: the next hour's row
    await billed(id, null, 2, at14, 1_234);

    const page = (await c.get('/credit')).text.replace(/\s+/g, ' ');
    const amount = (units: number) =>
      set === 'A' ? `-€${(units / 10_000).toFixed(4)}` : `-${units.toLocaleString('en')} credits`;
    expect(page).toContain(
      `key prod, 14:00–15:00 UTC, 3 requests </td> <td data-label="Amount" class="num">${amount(3 * 1_234)}</td>`,
    );
    expect(page).toContain(
      `key prod, 15:00–16:00 UTC, 1 request </td> <td data-label="Amount" class="num">${amount(1_234)}</td>`,
    );
    expect(page).toContain(
      `whitelisted addresses, 14:00–15:00 UTC, 2 requests </td> <td data-label="Amount" class="num">${amount(2 * 1_234)}</td>`,
    );

    const api = await c.api('get', '/api/credit');
    expect(api.body.keyNames).toBeUndefined();
    const rows = (api.body.ledger as { kind: string; keyId: string | null; hourStart: string }[])
      .filter((e) => e.kind === 'charge')
      .sort((a, b) => `${a.hourStart}${a.keyId}`.localeCompare(`${b.hourStart}${b.keyId}`));
    expect(rows).toEqual([
      expect.objectContaining({
        keyId: key?.id,
        count: 3,
        amount: set === 'A' ? '-0.3702' : -3702,
        hourStart: '2026-01-31T14:00:00.000Z',
        hourEnd: '2026-01-31T15:00:00.000Z',
      }),
      expect.objectContaining({ keyId: null, count: 2, hourStart: '2026-01-31T14:00:00.000Z' }),
      expect.objectContaining({ keyId: key?.id, count: 1, hourEnd: '2026-01-31T16:00:00.000Z' }),
    ]);
    const topup = (api.body.ledger as { kind: string }[]).find((e) => e.kind === 'topup');
    expect(topup).toMatchObject({ count: null, hourStart: null, hourEnd: null });
  });
});

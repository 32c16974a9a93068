/** Contract: charges are one ledger row per (account, key, UTC hour) with a count and an amount (D35). */
import { hourlyChargeRef } from '../../gateway/store/charge-hour';
import type { Store } from '../../gateway/store/ports';
import type { LedgerEntry } from '../../gateway/store/types';
import type { StoreHolder } from './helpers';
import { account, admitted, bill, counter, HOUR, plan, T0, uid } from './helpers';

/**
 * The account's charge rows by hour, then key (no key last), and a check that its balance is the ledger's sum. (The
 * order of rows opened together is the store's: the shared store's drain opens a batch's rows at once.)
 */
async function charges(store: Store, accountId: string): Promise<LedgerEntry[]> {
  const ledger = await store.ledger(accountId, 1000);
  expect((await store.getAccount(accountId))?.balance).toBe(ledger.reduce((s, e) => s + e.amount, 0));
  const order = (e: LedgerEntry) => `${e.hourStart} ${e.keyId ?? '~'}`;
  return ledger.filter((e) => e.kind === 'charge').sort((a, b) => (order(a) < order(b) ? -1 : 1));
}

/** Hourly ledger rules of `Store.admit` and `Store.release`. */
export function ledgerHourRules(h: StoreHolder): void {
  describe('hourly charge rows (D35)', () => {
    const billed = (accountId: string, o: { now?: number; keyId?: string | null; price?: number } = {}) =>
      plan({
        free: [counter(uid('key:'), 0)],
        overflow: bill(accountId, o.price ?? 3),
        keyId: o.keyId === undefined ? 'key_h' : o.keyId,
        now: o.now ?? T0 + 60_000,
      });

    // A charge reaches its hourly row when kept; one released while in flight never stays in it (D11, D34).
    it('two kept admissions in one hour are one row of count 2; a released one is not in it', async () => {
      const acc = await account(h.store, 100);
      const a = admitted(await h.store.admit(billed(acc.id)));
      const b = admitted(await h.store.admit(billed(acc.id, { now: T0 + HOUR - 1 })));
      const c = admitted(await h.store.admit(billed(acc.id, { now: T0 + 120_000 })));
      await h.store.release(a.ticket);
      await h.store.release(a.ticket); // once
      await Promise.all([h.store.keep(b.ticket), h.store.keep(c.ticket)]);
      expect(await charges(h.store, acc.id)).toEqual([
        expect.objectContaining({
          keyId: 'key_h',
          count: 2,
          amount: -6,
          hourStart: T0,
          createdAt: T0,
          ref: hourlyChargeRef('key_h', T0),
        }),
      ]);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(94);
      await h.store.release(b.ticket); // kept: a no-op
      expect((await h.store.getAccount(acc.id))?.balance).toBe(94);
    });

    it('an hour boundary starts a new row; a release takes back from its admission’s hour', async () => {
      const acc = await account(h.store, 100);
      const early = admitted(await h.store.admit(billed(acc.id, { now: T0 + HOUR - 2 })));
      const late = admitted(await h.store.admit(billed(acc.id, { now: T0 + HOUR - 1 })));
      const x = admitted(await h.store.admit(billed(acc.id, { now: T0 + HOUR })));
      const y = admitted(await h.store.admit(billed(acc.id, { now: T0 + 2 * HOUR - 1, price: 4 })));
      await h.store.release(late.ticket);
      await Promise.all([early, x, y].map((r) => h.store.keep(r.ticket)));
      expect(await charges(h.store, acc.id)).toMatchObject([
        { count: 1, amount: -3, hourStart: T0 },
        { count: 2, amount: -7, hourStart: T0 + HOUR },
      ]);
    });

    it('keys apart, and an admission without a key (a whitelisted account) apart from both', async () => {
      const acc = await account(h.store, 100);
      for (const keyId of ['key_p', 'key_q', null, 'key_p', null])
        await h.store.keep(admitted(await h.store.admit(billed(acc.id, { keyId }))).ticket);
      const rows = await charges(h.store, acc.id);
      expect(rows.map((e) => [e.keyId, e.count, e.amount])).toEqual([
        ['key_p', 2, -6],
        ['key_q', 1, -3],
        [null, 2, -6],
      ]);
      expect(rows[2]?.ref).toBe(`charge ${T0} -`);
    });

    it('top-ups stay one row each beside the hourly row; an admission and its release in one turn leave nothing', async () => {
      const acc = await account(h.store, 10);
      await h.store.keep(admitted(await h.store.admit(billed(acc.id))).ticket);
      await h.store.credit(acc.id, 5, uid('topup-'), T0 + 120_000);
      await h.store.keep(admitted(await h.store.admit(billed(acc.id))).ticket);
      const ledger = await h.store.ledger(acc.id, 10);
      expect(ledger.map((e) => [e.kind, e.amount, e.count]).sort()).toEqual([
        ['charge', -6, 2],
        ['topup', 10, null],
        ['topup', 5, null],
      ]);
      const other = await account(h.store, 10);
      const r = admitted(await h.store.admit(billed(other.id)));
      await h.store.release(r.ticket);
      expect(await charges(h.store, other.id)).toEqual([]);
    });
  });
}

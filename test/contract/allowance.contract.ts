/** Contract: free allowance, billing and Unlimited (spec 5.3, 5.4, D5, D7, D16). */
import { utcDay } from '../../gateway/core/clock';
import { hourlyChargeRef } from '../../gateway/store/charge-hour';
import type { StoreHolder } from './helpers';
import { account, admitted, bill, counter, DAY0, plan, remainingFree, T0, uid, WINDOW } from './helpers';

/** Allowance and billing rules of `Store.admit`. */
export function allowanceRules(h: StoreHolder): void {
  describe('free allowance', () => {
    it('admits free requests up to the limit, then refuses with quota_exceeded and reports used/limit', async () => {
      const id = uid('network:');
      for (let i = 1; i <= 3; i++) {
        expect(await h.store.admit(plan({ free: [counter(id, 3)] }))).toMatchObject({
          admitted: true,
          billed: false,
          charged: 0,
          quota: { used: i, limit: 3 },
        });
      }
      expect(await h.store.admit(plan({ free: [counter(id, 3)] }))).toEqual({
        admitted: false,
        code: 'quota_exceeded',
        quota: { used: 3, limit: 3 },
      });
    });

    it('counts per UTC day: the next day starts from zero', async () => {
      const id = uid('network:');
      admitted(await h.store.admit(plan({ free: [counter(id, 1)] })));
      expect((await h.store.admit(plan({ free: [counter(id, 1)] }))).admitted).toBe(false);
      const tomorrow = T0 + WINDOW;
      const r = await h.store.admit(plan({ now: tomorrow, day: utcDay(tomorrow), free: [counter(id, 1)] }));
      expect(r).toMatchObject({ admitted: true, quota: { used: 1, limit: 1 } });
    });

    it('D5: free only while both the key and the network counter are below the limit; free increments both', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const net = uid('network:');
      const keyed = () => plan({ free: [counter(k, 3), counter(net, 3)], overflow: bill(acc.id) });
      expect(await h.store.admit(keyed())).toMatchObject({ billed: false, quota: { used: 1, limit: 3 } });
      // Two anonymous requests from the network use up its allowance.
      admitted(await h.store.admit(plan({ free: [counter(net, 3)] })));
      admitted(await h.store.admit(plan({ free: [counter(net, 3)] })));
      // The key's own counter is at 1 of 3, but the network's is exhausted: billed, and neither counter moves;
      // the quota reported is the exhausted network's (the counter with the fewest remaining).
      expect(await h.store.admit(keyed())).toMatchObject({
        billed: true,
        charged: 1,
        quota: { used: 3, limit: 3 },
      });
      expect(await remainingFree(h.store, k, 3)).toBe(2);
      expect(await remainingFree(h.store, net, 3)).toBe(0);
    });

    it('treats a plan without counters as free and reports no quota', async () => {
      expect(
        await h.store.admit(plan({ overflow: { kind: 'refuse', code: 'quota_exceeded' } })),
      ).toMatchObject({
        admitted: true,
        billed: false,
        quota: null,
      });
    });
  });

  describe('billing past the allowance', () => {
    it("debits the price; once kept, the request is in its key's hourly charge row (D35)", async () => {
      const acc = await account(h.store, 10);
      const p = plan({ free: [counter(uid('key:'), 0)], overflow: bill(acc.id, 3), keyId: 'key_x' });
      const r = admitted(await h.store.admit(p));
      expect(r).toMatchObject({ admitted: true, billed: true, charged: 3 });
      expect((await h.store.getAccount(acc.id))?.balance).toBe(7);
      await h.store.keep(r.ticket);
      const [charge] = await h.store.ledger(acc.id, 1);
      expect(charge).toMatchObject({
        accountId: acc.id,
        amount: -3,
        kind: 'charge',
        keyId: 'key_x',
        ref: hourlyChargeRef('key_x', T0),
        count: 1,
        hourStart: T0,
        createdAt: T0,
      });
    });

    it('D16: never takes the balance below zero; refuses with the overflow code (no_credits A, quota_exceeded B)', async () => {
      const acc = await account(h.store, 5);
      const p = (code: 'no_credits' | 'quota_exceeded') =>
        plan({
          free: [counter(uid('key:'), 0)],
          overflow: { kind: 'bill', accountId: acc.id, price: 3, refuse: code },
        });
      await h.store.keep(admitted(await h.store.admit(p('no_credits'))).ticket);
      expect(await h.store.admit(p('no_credits'))).toMatchObject({ admitted: false, code: 'no_credits' });
      expect(await h.store.admit(p('quota_exceeded'))).toMatchObject({
        admitted: false,
        code: 'quota_exceeded',
      });
      expect((await h.store.getAccount(acc.id))?.balance).toBe(2);
      expect((await h.store.ledger(acc.id, 10)).map((e) => e.amount)).toEqual([-3, 5]);
    });

    it('bills exactly the whole balance when it equals the price', async () => {
      const acc = await account(h.store, 2);
      const r = await h.store.admit(plan({ free: [counter(uid('key:'), 0)], overflow: bill(acc.id, 2) }));
      expect(r).toMatchObject({ admitted: true, billed: true, charged: 2 });
      expect((await h.store.getAccount(acc.id))?.balance).toBe(0);
    });

    it('Unlimited: serves past the allowance without charge and without counting', async () => {
      const acc = await account(h.store, 5);
      const id = uid('account:');
      admitted(await h.store.admit(plan({ free: [counter(id, 1)], overflow: { kind: 'free' } })));
      const r = await h.store.admit(
        plan({ free: [counter(id, 1)], overflow: { kind: 'free' }, usage: [id] }),
      );
      expect(r).toMatchObject({ admitted: true, billed: false, charged: 0, quota: { used: 1, limit: 1 } });
      expect((await h.store.getAccount(acc.id))?.balance).toBe(5);
      expect(await h.store.usage([id], DAY0, DAY0)).toEqual([
        { day: DAY0, subject: id, free: 1, billed: 0, refused: 0 },
      ]);
    });
  });

  describe('usage history', () => {
    it('credits each usage subject in the free or the billed column', async () => {
      const acc = await account(h.store, 5);
      const [k, a] = [uid('key:'), uid('account:')];
      const p = () => plan({ free: [counter(k, 1)], overflow: bill(acc.id), usage: [k, a] });
      admitted(await h.store.admit(p()));
      admitted(await h.store.admit(p()));
      admitted(await h.store.admit(p()));
      const rows = await h.store.usage([k, a], DAY0, DAY0);
      expect(rows.sort((x, y) => (x.subject < y.subject ? -1 : 1))).toEqual([
        { day: DAY0, subject: a, free: 1, billed: 2, refused: 0 },
        { day: DAY0, subject: k, free: 1, billed: 2, refused: 0 },
      ]);
    });

    it('recordRefusal counts only the refused column', async () => {
      const s = uid('network:');
      await h.store.recordRefusal([s], DAY0);
      await h.store.recordRefusal([s], DAY0);
      expect(await h.store.usage([s], DAY0, DAY0)).toEqual([
        { day: DAY0, subject: s, free: 0, billed: 0, refused: 2 },
      ]);
      expect(await remainingFree(h.store, s, 2)).toBe(2);
    });

    it('returns rows between two days inclusive, ordered by day', async () => {
      const s = uid('key:');
      for (const d of ['2026-11-20', '2026-11-22', '2026-11-21', '2026-11-25']) {
        await h.store.admit(plan({ day: d, usage: [s] }));
      }
      const rows = await h.store.usage([s], '2026-11-21', '2026-11-24');
      expect(rows.map((r) => r.day)).toEqual(['2026-11-21', '2026-11-22']);
      expect(await h.store.usage([], '2026-11-01', '2026-11-30')).toEqual([]);
    });
  });
}

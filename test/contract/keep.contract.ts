/** Contract: keep settles an admission for good (the backend answered): it stays counted, and release no longer undoes it. */
import type { StoreHolder } from './helpers';
import { account, admitted, bill, counter, plan, slot, snapshot, uid } from './helpers';

/** Rules of `Store.keep`. */
export function keepRules(h: StoreHolder): void {
  describe('keep (D11: an answered request stays charged)', () => {
    it('a kept admission stays counted and charged; a later release of its ticket is a no-op', async () => {
      const acc = await account(h.store, 10);
      const [scope, k] = [uid('key:'), uid('key:')];
      const view = { accountId: acc.id, scopes: [slot(scope, 'a')], subjects: [k] };
      const p = () =>
        plan({ slots: [slot(scope, 'a')], free: [counter(k, 1)], overflow: bill(acc.id, 3), usage: [k] });
      const free = admitted(await h.store.admit(p()));
      const billed = admitted(await h.store.admit(p()));
      expect(billed.charged).toBe(3);
      await Promise.all([h.store.keep(free.ticket), h.store.keep(billed.ticket)]);
      const kept = await snapshot(h.store, view);
      await h.store.release(free.ticket);
      await h.store.release(JSON.parse(JSON.stringify(billed.ticket)) as typeof billed.ticket);
      expect(await snapshot(h.store, view)).toEqual(kept);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(7);
    });

    it('keeping twice, or keeping a released ticket, changes nothing', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const p = () => plan({ free: [counter(k, 0)], overflow: bill(acc.id, 2), usage: [k] });
      const a = admitted(await h.store.admit(p()));
      const b = admitted(await h.store.admit(p()));
      await h.store.keep(a.ticket);
      await h.store.release(b.ticket);
      const settled = await snapshot(h.store, { accountId: acc.id, subjects: [k] });
      await h.store.keep(a.ticket);
      await h.store.keep(b.ticket);
      expect(await snapshot(h.store, { accountId: acc.id, subjects: [k] })).toEqual(settled);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(8);
    });
  });
}

/** Contract: release undoes exactly one admission, once (D11). */
import type { StoreHolder } from './helpers';
import {
  account,
  admitted,
  bill,
  counter,
  DAY0,
  HOUR,
  plan,
  remainingFree,
  slot,
  snapshot,
  T0,
  uid,
  WINDOW,
} from './helpers';

/** Release rules of `Store.release`. */
export function releaseRules(h: StoreHolder): void {
  describe('release (D11)', () => {
    it('undoes a free admission: counters, usage and the slot it added', async () => {
      const [scope, k, net] = [uid('key:'), uid('key:'), uid('network:')];
      admitted(await h.store.admit(plan({ free: [counter(k, 3)], usage: [k] })));
      const view = { scopes: [slot(scope, 'a')], subjects: [k, net] };
      const before = await snapshot(h.store, view);
      const r = admitted(
        await h.store.admit(
          plan({ slots: [slot(scope, 'a')], free: [counter(k, 3), counter(net, 3)], usage: [k, net] }),
        ),
      );
      await h.store.release(r.ticket);
      expect(await snapshot(h.store, view)).toEqual(before);
      expect(await remainingFree(h.store, k, 3)).toBe(2);
      expect(await remainingFree(h.store, net, 3)).toBe(3);
    });

    it('undoes a billed admission: balance restored, the charge gone from the ledger, usage decremented', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const p = () => plan({ free: [counter(k, 0)], overflow: bill(acc.id, 4), usage: [k], keyId: 'key_y' });
      admitted(await h.store.admit(p()));
      const before = await snapshot(h.store, { accountId: acc.id, subjects: [k] });
      const r = admitted(await h.store.admit(p()));
      expect((await h.store.getAccount(acc.id))?.balance).toBe(2);
      await h.store.release(r.ticket);
      expect(await snapshot(h.store, { accountId: acc.id, subjects: [k] })).toEqual(before);
    });

    it('a second release of the same ticket, or of a copy, is a no-op', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const p = () => plan({ free: [counter(k, 1)], overflow: bill(acc.id), usage: [k] });
      const free = admitted(await h.store.admit(p()));
      const billed = admitted(await h.store.admit(p()));
      admitted(await h.store.admit(p()));
      await h.store.release(free.ticket);
      await h.store.release(billed.ticket);
      const after = await snapshot(h.store, { accountId: acc.id, subjects: [k] });
      await h.store.release(free.ticket);
      await h.store.release(JSON.parse(JSON.stringify(billed.ticket)));
      await h.store.release(JSON.parse(JSON.stringify(free.ticket)));
      expect(await snapshot(h.store, { accountId: acc.id, subjects: [k] })).toEqual(after);
      expect(after.balance).toBe(9);
      expect(after.usage).toEqual([{ day: DAY0, subject: k, free: 0, billed: 1, refused: 0 }]);
      expect(await remainingFree(h.store, k, 1)).toBe(1);
    });

    it("restores the lastSeen an admission moved, and leaves other admissions' effects alone", async () => {
      const scope = uid('account:');
      const s = slot(scope, 'a', { mode: 'sliding' });
      admitted(await h.store.admit(plan({ now: T0, slots: [s] })));
      const moved = admitted(await h.store.admit(plan({ now: T0 + HOUR, slots: [s] })));
      await h.store.release(moved.ticket);
      expect(await h.store.listSlots(scope, 'sliding', WINDOW, T0 + HOUR)).toEqual([
        { member: 'a', firstSeen: T0, lastSeen: T0, freesAt: T0 + WINDOW },
      ]);
    });

    it('keeps a slot that a later admission used again', async () => {
      const scope = uid('key:');
      const first = admitted(await h.store.admit(plan({ now: T0, slots: [slot(scope, 'a')] })));
      admitted(await h.store.admit(plan({ now: T0 + HOUR, slots: [slot(scope, 'a')] })));
      await h.store.release(first.ticket);
      const live = await h.store.listSlots(scope, 'fixed', WINDOW, T0 + HOUR);
      expect(live.map((x) => x.member)).toEqual(['a']);
    });

    it('frees the slot it added so another address can take it', async () => {
      const scope = uid('key:');
      admitted(await h.store.admit(plan({ slots: [slot(scope, 'a')] })));
      const b = admitted(await h.store.admit(plan({ slots: [slot(scope, 'b')] })));
      expect((await h.store.admit(plan({ slots: [slot(scope, 'c')] }))).admitted).toBe(false);
      await h.store.release(b.ticket);
      admitted(await h.store.admit(plan({ slots: [slot(scope, 'c')] })));
    });
  });
}

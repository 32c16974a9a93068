/** Contract: IP slots and the account address limit (spec 5.5, D6, D9, D10, D13). */
import type { StoreHolder } from './helpers';
import { admitted, HOUR, plan, slot, T0, uid, WINDOW } from './helpers';

/** Slot rules of `Store.admit`. */
export function slotRules(h: StoreHolder): void {
  describe('IP slots', () => {
    it('admits a new address into a free slot and lists it with firstSeen = lastSeen = now', async () => {
      const scope = uid('key:');
      admitted(await h.store.admit(plan({ slots: [slot(scope, '192.0.2.1')] })));
      expect(await h.store.listSlots(scope, 'fixed', WINDOW, T0)).toEqual([
        { member: '192.0.2.1', firstSeen: T0, lastSeen: T0, freesAt: T0 + WINDOW },
      ]);
    });

    it('refuses a third address with key_ip_limit and names when the next slot frees', async () => {
      const scope = uid('key:');
      await h.store.admit(plan({ now: T0, slots: [slot(scope, '192.0.2.1')] }));
      await h.store.admit(plan({ now: T0 + HOUR, slots: [slot(scope, '192.0.2.2')] }));
      const r = await h.store.admit(plan({ now: T0 + 2 * HOUR, slots: [slot(scope, '192.0.2.3')] }));
      expect(r).toMatchObject({ admitted: false, code: 'key_ip_limit', nextSlotFreeAt: T0 + WINDOW });
      expect((await h.store.listSlots(scope, 'fixed', WINDOW, T0 + 2 * HOUR)).map((s) => s.member)).toEqual([
        '192.0.2.1',
        '192.0.2.2',
      ]);
    });

    it('admits an address that already holds a slot when all slots are taken and moves its lastSeen', async () => {
      const scope = uid('key:');
      await h.store.admit(plan({ now: T0, slots: [slot(scope, 'a')] }));
      await h.store.admit(plan({ now: T0, slots: [slot(scope, 'b')] }));
      admitted(await h.store.admit(plan({ now: T0 + HOUR, slots: [slot(scope, 'a')] })));
      const a = (await h.store.listSlots(scope, 'fixed', WINDOW, T0 + HOUR)).find((s) => s.member === 'a');
      expect(a).toEqual({ member: 'a', firstSeen: T0, lastSeen: T0 + HOUR, freesAt: T0 + WINDOW });
    });

    it('fixed mode (A, D13): a slot frees 24 h after its first use even when used since', async () => {
      const scope = uid('key:');
      await h.store.admit(plan({ now: T0, slots: [slot(scope, 'a')] }));
      await h.store.admit(plan({ now: T0, slots: [slot(scope, 'b')] }));
      await h.store.admit(plan({ now: T0 + 23 * HOUR, slots: [slot(scope, 'a')] }));
      const before = await h.store.admit(plan({ now: T0 + WINDOW - 1, slots: [slot(scope, 'c')] }));
      expect(before).toMatchObject({ admitted: false, code: 'key_ip_limit', nextSlotFreeAt: T0 + WINDOW });
      // At exactly firstSeen + window the entry is no longer live.
      admitted(await h.store.admit(plan({ now: T0 + WINDOW, slots: [slot(scope, 'c')] })));
      const live = await h.store.listSlots(scope, 'fixed', WINDOW, T0 + WINDOW);
      expect(live.map((s) => s.member).sort()).toEqual(['c']);
    });

    it('sliding mode (B, D13): a slot frees 24 h after the address was last seen', async () => {
      const scope = uid('account:');
      const s = (member: string) => slot(scope, member, { mode: 'sliding', refuse: 'account_ip_limit' });
      await h.store.admit(plan({ now: T0, slots: [s('a')] }));
      await h.store.admit(plan({ now: T0 + HOUR, slots: [s('b')] }));
      await h.store.admit(plan({ now: T0 + 20 * HOUR, slots: [s('a')] }));
      // 24.5 h after a's first use: a is still live because it was seen at 20 h (fixed mode would free it).
      const r = await h.store.admit(plan({ now: T0 + 24.5 * HOUR, slots: [s('c')] }));
      expect(r).toMatchObject({ admitted: false, code: 'account_ip_limit', nextSlotFreeAt: T0 + 25 * HOUR });
      admitted(await h.store.admit(plan({ now: T0 + 25 * HOUR, slots: [s('d')] })) /* b expired */);
      const live = await h.store.listSlots(scope, 'sliding', WINDOW, T0 + 25 * HOUR);
      expect(live.map((x) => [x.member, x.freesAt])).toEqual([
        ['a', T0 + 44 * HOUR],
        ['d', T0 + 49 * HOUR],
      ]);
    });

    it('replaces an expired entry of the same address with a new one (firstSeen = now)', async () => {
      const scope = uid('key:');
      await h.store.admit(plan({ now: T0, slots: [slot(scope, 'a')] }));
      const later = T0 + WINDOW + HOUR;
      admitted(await h.store.admit(plan({ now: later, slots: [slot(scope, 'a')] })));
      expect(await h.store.listSlots(scope, 'fixed', WINDOW, later)).toEqual([
        { member: 'a', firstSeen: later, lastSeen: later, freesAt: later + WINDOW },
      ]);
    });

    it('honours the capacity of the spec (3 slots for an Unlimited key)', async () => {
      const scope = uid('key:');
      for (const m of ['a', 'b', 'c'])
        admitted(await h.store.admit(plan({ slots: [slot(scope, m, { capacity: 3 })] })));
      const r = await h.store.admit(plan({ slots: [slot(scope, 'd', { capacity: 3 })] }));
      expect(r).toMatchObject({ admitted: false, code: 'key_ip_limit' });
    });

    it('D9: the first slot refusal wins, and a refusal by a later slot set adds nothing to the earlier one (D10)', async () => {
      const keyScope = uid('key:');
      const accScope = uid('account:');
      const both = (m: string) => [
        slot(keyScope, m),
        slot(accScope, m, { mode: 'sliding', refuse: 'account_ip_limit' }),
      ];
      await h.store.admit(plan({ slots: both('a') }));
      await h.store.admit(plan({ slots: both('b') }));
      expect(await h.store.admit(plan({ slots: both('c') }))).toMatchObject({ code: 'key_ip_limit' });
      // A second key of the same account: its own slot is free, the account's addresses are not.
      const otherKey = uid('key:');
      const r = await h.store.admit(
        plan({
          slots: [slot(otherKey, 'c'), slot(accScope, 'c', { mode: 'sliding', refuse: 'account_ip_limit' })],
        }),
      );
      expect(r).toMatchObject({ admitted: false, code: 'account_ip_limit', nextSlotFreeAt: T0 + WINDOW });
      expect(await h.store.listSlots(otherKey, 'fixed', WINDOW, T0)).toEqual([]);
    });
  });
}

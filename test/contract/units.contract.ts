/** Contract: a plan of several units is admitted whole or not at all (D10), each unit settled on its own (D11). */
import type { AdmissionPlan, Ticket } from '../../gateway/store/types';
import type { StoreHolder } from './helpers';
import {
  account,
  admitted,
  bill,
  chargedIn,
  counter,
  plan,
  remainingFree,
  slot,
  snapshot,
  uid,
} from './helpers';

/** A ticket's unit tickets (a plan of several units has one per unit). */
function unitsOf(ticket: Ticket): Ticket[] {
  if (ticket.units === undefined)
    throw new Error('the ticket of a plan of several units has no unit tickets');
  return ticket.units;
}

/** Unit-plan rules of `Store.admit`, `Store.keep` and `Store.release`. */
export function unitRules(h: StoreHolder): void {
  describe('units: a plan of n units (D10, D11 per unit)', () => {
    it('admits n units in one step: free units first, the rest billed, quota as after the last unit', async () => {
      const acc = await account(h.store, 10);
      const [scope, k, net] = [uid('key:'), uid('key:'), uid('network:')];
      const r = admitted(
        await h.store.admit(
          plan({
            slots: [slot(scope, 'a')],
            free: [counter(k, 3), counter(net, 5)],
            overflow: bill(acc.id, 2),
            usage: [k],
            keyId: 'key_u',
            units: 5,
          }),
        ),
      );
      expect(r).toMatchObject({ billed: true, charged: 4, quota: { used: 3, limit: 3 } });
      expect(unitsOf(r.ticket)).toHaveLength(5);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(6);
      await h.store.keep(r.ticket);
      // D35: the billed units are one addition to the key's hourly row.
      const charges = (await h.store.ledger(acc.id, 100)).filter((e) => e.kind === 'charge');
      expect(charges).toMatchObject([{ keyId: 'key_u', count: 2, amount: -4 }]);
      const [usage] = await h.store.usage([k], '2000-01-01', '2100-01-01');
      expect(usage).toMatchObject({ free: 3, billed: 2 });
      expect(await remainingFree(h.store, net, 5)).toBe(2);
    });

    it('a refusal of unit k changes nothing for units 1..k-1 (counters, slots, balance, usage, ledger)', async () => {
      const acc = await account(h.store, 3);
      const [scope, k, net] = [uid('key:'), uid('key:'), uid('network:')];
      const p = (units: number): AdmissionPlan =>
        plan({
          slots: [slot(scope, 'a')],
          free: [counter(k, 3), counter(net, 3)],
          overflow: bill(acc.id, 2),
          usage: [k, net],
          keyId: 'key_r',
          units,
        });
      const view = { accountId: acc.id, scopes: p(1).slots, subjects: [k, net] };
      const before = await snapshot(h.store, view);
      // Units 1-3 free, unit 4 billed 2 of 3, unit 5 refused: no credit left.
      expect(await h.store.admit(p(5))).toMatchObject({
        admitted: false,
        code: 'no_credits',
        quota: { used: 0, limit: 3 },
      });
      expect(await snapshot(h.store, view)).toEqual(before);
      expect(await h.store.listSlots(scope, 'fixed', p(1).slots[0]?.windowMs ?? 0, p(1).now)).toEqual([]);
      const quota = plan({ free: [counter(k, 3)], usage: [k], units: 4 });
      expect(await h.store.admit(quota)).toMatchObject({ admitted: false, code: 'quota_exceeded' });
      expect(await snapshot(h.store, view)).toEqual(before);
      expect(await remainingFree(h.store, k, 3)).toBe(3);
      expect(await remainingFree(h.store, net, 3)).toBe(3);
    });

    it('each unit is kept or released on its own; settling the plan settles the units left', async () => {
      const acc = await account(h.store, 10);
      const [scope, k] = [uid('key:'), uid('key:')];
      const p = plan({
        slots: [slot(scope, 'a')],
        free: [counter(k, 2)],
        overflow: bill(acc.id, 1),
        usage: [k],
        units: 4,
      });
      const r = admitted(await h.store.admit(p));
      const [u0, u1, u2, u3] = unitsOf(r.ticket) as [Ticket, Ticket, Ticket, Ticket];
      await h.store.keep(u0);
      await h.store.release(u1); // free: its counter increment given back
      await h.store.release(u3); // billed: its charge given back
      await h.store.release(u3); // once
      expect((await h.store.getAccount(acc.id))?.balance).toBe(9);
      await h.store.keep(r.ticket); // keeps u2 and the slot
      await h.store.release(r.ticket); // nothing left to release
      await h.store.release(u2);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(9);
      const charges = (await h.store.ledger(acc.id, 100)).filter((e) => e.kind === 'charge');
      expect(charges).toMatchObject([{ count: 1, amount: -1 }]); // u2's; u3's taken back from the hourly row
      expect(await h.store.listSlots(scope, 'fixed', p.slots[0]?.windowMs ?? 0, p.now)).toHaveLength(1);
      const [usage] = await h.store.usage([k], '2000-01-01', '2100-01-01');
      expect(usage).toMatchObject({ free: 1, billed: 1 });
      expect(await remainingFree(h.store, k, 2)).toBe(1);
    });

    it('releasing the plan gives every unit back, slot included', async () => {
      const acc = await account(h.store, 10);
      const [scope, k] = [uid('key:'), uid('key:')];
      const p = plan({
        slots: [slot(scope, 'a')],
        free: [counter(k, 1)],
        overflow: bill(acc.id, 3),
        usage: [k],
        units: 3,
      });
      const view = { accountId: acc.id, scopes: p.slots, subjects: [k] };
      const before = await snapshot(h.store, view);
      const r = admitted(await h.store.admit(p));
      expect(r.charged).toBe(6);
      await h.store.release(r.ticket);
      expect(await snapshot(h.store, view)).toEqual(before);
      expect(await remainingFree(h.store, k, 1)).toBe(1);
    });

    it('20x oversubscribed: concurrent plans of several units leave the balance exact and never negative', async () => {
      const balance = 30;
      const acc = await account(h.store, balance);
      const [k, net] = [uid('key:'), uid('network:')];
      // 10 free units and 30 billed units of capacity; 100 plans of 8 units ask for 800.
      const plans = Array.from({ length: 100 }, () =>
        plan({
          free: [counter(k, 10), counter(net, 50)],
          overflow: bill(acc.id, 1),
          usage: [k],
          units: 8,
        }),
      );
      const results = await Promise.all(plans.map((p) => h.store.admit(p)));
      const won = results.filter((r) => r.admitted);
      const charged = won.reduce((sum, r) => sum + (r.admitted ? r.charged : 0), 0);
      expect(won.length).toBeGreaterThan(0);
      expect(won.length * 8).toBeLessThanOrEqual(40);
      for (const r of results) if (!r.admitted) expect(r.code).toBe('no_credits');
      const after = (await h.store.getAccount(acc.id))?.balance ?? -1;
      expect(after).toBe(balance - charged);
      expect(after).toBeGreaterThanOrEqual(0);
      await Promise.all(won.map((r) => (r.admitted ? h.store.keep(r.ticket) : undefined)));
      expect(chargedIn(await h.store.ledger(acc.id, 1000))).toBe(charged);
      const [usage] = await h.store.usage([k], '2000-01-01', '2100-01-01');
      expect((usage?.free ?? 0) + (usage?.billed ?? 0)).toBe(won.length * 8);
      expect(usage?.free ?? 0).toBeLessThanOrEqual(10);
      expect(await remainingFree(h.store, k, 10)).toBe(10 - (usage?.free ?? 0));
      // What is left is still admitted whole: the balance of a plan that fits is taken to the last unit.
      if (after > 0) {
        const rest = plan({ free: [counter(k, 10)], overflow: bill(acc.id, 1), usage: [k], units: after });
        expect(admitted(await h.store.admit(rest)).charged).toBe(after);
        expect((await h.store.getAccount(acc.id))?.balance).toBe(0);
      }
    });
  });
}

/** Contract: a refused request changes nothing (D10), observed through the whole interface. */
import type { AdmissionPlan } from '../../gateway/store/types';
import type { Store } from '../../gateway/store/ports';
import type { StoreHolder } from './helpers';
import {
  account,
  admitted,
  bill,
  counter,
  expectFault,
  plan,
  remainingFree,
  slot,
  snapshot,
  uid,
} from './helpers';

/** Admit `refused` (expected to be refused with `code`) and check that nothing observable moved. */
async function expectRefusalChangesNothing(
  store: Store,
  refused: AdmissionPlan,
  code: string,
): Promise<void> {
  const accountId = refused.overflow.kind === 'bill' ? refused.overflow.accountId : undefined;
  const view = {
    scopes: refused.slots,
    subjects: refused.usage,
    now: refused.now,
    ...(accountId ? { accountId } : {}),
  };
  const before = await snapshot(store, view);
  expect(await store.admit(refused)).toMatchObject({ admitted: false, code });
  expect(await snapshot(store, view)).toEqual(before);
}

/** D10 rules of `Store.admit`. */
export function refusalRules(h: StoreHolder): void {
  describe('D10: a refusal changes nothing', () => {
    it('a slot refusal adds no slot, counts no request and charges nothing', async () => {
      const acc = await account(h.store, 10);
      const [scope, k, net] = [uid('key:'), uid('key:'), uid('network:')];
      const p = (m: string) =>
        plan({
          slots: [slot(scope, m)],
          free: [counter(k, 5), counter(net, 5)],
          overflow: bill(acc.id),
          usage: [k],
        });
      admitted(await h.store.admit(p('a')));
      admitted(await h.store.admit(p('b')));
      await expectRefusalChangesNothing(h.store, p('c'), 'key_ip_limit');
      expect(await remainingFree(h.store, k, 5)).toBe(3);
      expect(await remainingFree(h.store, net, 5)).toBe(3);
    });

    it('a quota refusal adds no slot and no usage', async () => {
      const [scope, net] = [uid('account:'), uid('network:')];
      const p = (m: string) =>
        plan({ slots: [slot(scope, m, { mode: 'sliding' })], free: [counter(net, 1)], usage: [net] });
      admitted(await h.store.admit(p('a')));
      await expectRefusalChangesNothing(h.store, p('b'), 'quota_exceeded');
    });

    it('a refusal for lack of credit adds no slot, no usage, no ledger row and keeps the balance', async () => {
      const acc = await account(h.store, 1);
      const [scope, k] = [uid('key:'), uid('key:')];
      const p = (m: string) =>
        plan({
          slots: [slot(scope, m)],
          free: [counter(k, 0)],
          overflow: bill(acc.id, 2),
          usage: [k],
          keyId: 'key_1',
        });
      await expectRefusalChangesNothing(h.store, p('a'), 'no_credits');
      expect(await h.store.listSlots(scope, 'fixed', 86_400_000, p('a').now)).toEqual([]);
    });

    it('admitting the same plan id twice is a fault and changes nothing the second time', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const p = plan({ free: [counter(k, 0)], overflow: bill(acc.id), usage: [k] });
      admitted(await h.store.admit(p));
      const before = await snapshot(h.store, { accountId: acc.id, subjects: [k] });
      await expectFault(h.store.admit(p));
      expect(await snapshot(h.store, { accountId: acc.id, subjects: [k] })).toEqual(before);
    });

    it('a fault among admissions submitted together fails that one alone; the others are charged and counted once', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const p = () => plan({ free: [counter(k, 0)], overflow: bill(acc.id, 2), usage: [k] });
      const first = p();
      const kept = [admitted(await h.store.admit(first)).ticket];
      // One turn: on the embedded store one group commit, whose at-once run the duplicate breaks.
      const outcomes = await Promise.allSettled([p(), first, p(), p()].map((x) => h.store.admit(x)));
      expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.admitted : 'fault'))).toEqual([
        true,
        'fault',
        true,
        true,
      ]);
      for (const o of outcomes) if (o.status === 'fulfilled' && o.value.admitted) kept.push(o.value.ticket);
      await Promise.all(kept.map((t) => h.store.keep(t)));
      const after = await snapshot(h.store, { accountId: acc.id, subjects: [k] });
      expect(after.balance).toBe(10 - 4 * 2);
      // D35: the four charges are one hourly row of four requests.
      expect(after.ledger.filter((e) => e.kind === 'charge')).toMatchObject([{ count: 4, amount: -8 }]);
      expect(after.usage.map((u) => [u.free, u.billed])).toEqual([[0, 4]]);
    });
  });
}

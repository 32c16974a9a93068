/**
 * Contract: `AdmissionResult.quota` reports the free counter with the fewest remaining (limit − used after this
 * request), ties → the first in plan order, on admitted and refused results alike (D5 key + network, D21 headers).
 * Several plans put their counters in different shards on purpose: on a Redis Cluster that is the
 * reserve-then-compensate path (one step per shard), where each step sees only its own counters.
 */
import { shardOf } from '../../gateway/store/shared/layout';
import type { AdmissionPlan, CounterSpec } from '../../gateway/store/types';
import type { Store } from '../../gateway/store/ports';
import type { StoreHolder } from './helpers';
import { account, admitted, bill, counter, plan, remainingFree, slot, uid } from './helpers';

/** A fresh id with this prefix whose cluster shard is (`same` true) or is not (false) the shard of `other`. */
function idBeside(prefix: string, other: string, same: boolean): string {
  for (;;) {
    const id = uid(prefix);
    if ((shardOf(id) === shardOf(other)) === same) return id;
  }
}

/** Bring counter `id` to `n` used today by n single-counter free admissions (in concurrent batches). */
async function useUp(store: Store, id: string, n: number, limit = n): Promise<void> {
  for (let done = 0; done < n;) {
    const batch = Math.min(200, n - done);
    const results = await Promise.all(
      Array.from({ length: batch }, () => store.admit(plan({ free: [counter(id, limit)] }))),
    );
    expect(results.every((r) => r.admitted)).toBe(true);
    done += batch;
  }
}

/** A keyed plan of rule set A's shape (D5): the key's counter, then its network's. */
function keyed(free: CounterSpec[], o: Partial<AdmissionPlan> = {}): AdmissionPlan {
  return plan({ free, ...o });
}

/** Quota rules of `Store.admit`. */
export function quotaRules(h: StoreHolder): void {
  describe('quota: the counter with the fewest remaining (D5, D21)', () => {
    it('free admission: key 10/2,500 and network 2,000/2,500 → reports the network at 2,001/2,500', async () => {
      const k = uid('key:');
      const net = idBeside('network:', k, false);
      await useUp(h.store, k, 10, 2_500);
      await useUp(h.store, net, 2_000, 2_500);
      const r = await h.store.admit(keyed([counter(k, 2_500), counter(net, 2_500)]));
      expect(r).toMatchObject({ admitted: true, billed: false, quota: { used: 2_001, limit: 2_500 } });
      // Both counters moved (D5), whatever the report shows.
      expect(await remainingFree(h.store, k, 12)).toBe(1);
    });

    it('the key tighter than the network → reports the key (order in the plan does not decide)', async () => {
      const net = uid('network:');
      const k = idBeside('key:', net, false);
      await useUp(h.store, k, 7, 8);
      await useUp(h.store, net, 2, 8);
      const r = await h.store.admit(keyed([counter(net, 8), counter(k, 8)]));
      expect(r).toMatchObject({ admitted: true, quota: { used: 8, limit: 8 } });
    });

    it('a tie in remaining → reports the first counter of the plan', async () => {
      const k = uid('key:');
      const net = idBeside('network:', k, false);
      await useUp(h.store, k, 3, 5); // after the request: 4/5, 1 left
      await useUp(h.store, net, 8, 10); // after the request: 9/10, 1 left
      expect(await h.store.admit(keyed([counter(k, 5), counter(net, 10)]))).toMatchObject({
        quota: { used: 4, limit: 5 },
      });
      expect(await h.store.admit(keyed([counter(net, 10), counter(k, 5)]))).toMatchObject({
        quota: { used: 10, limit: 10 },
      });
    });

    it('refused (quota_exceeded): network at its limit, key far below → reports the network, nothing moves', async () => {
      const k = uid('key:');
      const net = idBeside('network:', k, false);
      await useUp(h.store, k, 1, 5);
      await useUp(h.store, net, 5, 5);
      expect(await h.store.admit(keyed([counter(k, 5), counter(net, 5)]))).toEqual({
        admitted: false,
        code: 'quota_exceeded',
        quota: { used: 5, limit: 5 },
      });
      expect(await remainingFree(h.store, k, 5)).toBe(4);
    });

    it('billed past the allowance (D7): reports the exhausted network, not the key', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const net = idBeside('network:', k, false);
      await useUp(h.store, k, 1, 4);
      await useUp(h.store, net, 4, 4);
      const r = await h.store.admit(keyed([counter(k, 4), counter(net, 4)], { overflow: bill(acc.id) }));
      expect(r).toMatchObject({ admitted: true, billed: true, charged: 1, quota: { used: 4, limit: 4 } });
    });

    it('refused for lack of credits (D16): reports the tightest counter', async () => {
      const acc = await account(h.store, 0);
      const k = uid('key:');
      const net = idBeside('network:', k, false);
      await useUp(h.store, net, 3, 3);
      const r = await h.store.admit(keyed([counter(k, 6), counter(net, 3)], { overflow: bill(acc.id) }));
      expect(r).toEqual({ admitted: false, code: 'no_credits', quota: { used: 3, limit: 3 } });
    });

    it('refused by a slot (D9): still reports the tightest counter, unchanged', async () => {
      const k = uid('key:');
      const net = idBeside('network:', k, false);
      await useUp(h.store, net, 4, 6);
      const p = (m: string) =>
        keyed([counter(k, 6), counter(net, 6)], { slots: [slot(k, m, { capacity: 1 })] });
      expect(await h.store.admit(p('a'))).toMatchObject({ admitted: true, quota: { used: 5, limit: 6 } });
      expect(await h.store.admit(p('b'))).toMatchObject({
        admitted: false,
        code: 'key_ip_limit',
        quota: { used: 5, limit: 6 },
      });
    });

    it('a later counter refuses after an earlier one was reserved: the earlier one reports its value without this request', async () => {
      const a = uid('key:');
      const b = idBeside('network:', a, false);
      await useUp(h.store, a, 4, 5); // were it counted: 5/5, 0 left, and first → it would be reported
      await useUp(h.store, b, 6, 6); // full: 0 left
      const r = await h.store.admit(keyed([counter(a, 5), counter(b, 6)]));
      expect(r).toEqual({ admitted: false, code: 'quota_exceeded', quota: { used: 6, limit: 6 } });
      expect(await remainingFree(h.store, a, 5)).toBe(1);
    });

    it('three counters over two shards: a counter listed earlier but reserved later still wins a tie', async () => {
      const a = uid('key:');
      const b = idBeside('network:', a, false);
      const c = idBeside('account:', a, true); // with a: one step on a cluster, b's step after it
      await useUp(h.store, a, 1, 5);
      await useUp(h.store, b, 5, 6); // after the request 6/6
      await useUp(h.store, c, 4, 5); // after the request 5/5
      const free = [counter(a, 5), counter(b, 6), counter(c, 5)];
      expect(await h.store.admit(keyed(free))).toMatchObject({
        admitted: true,
        quota: { used: 6, limit: 6 },
      });
      // Now b and c are both full: refused, the tie again goes to b (listed before c), which no step reached.
      expect(await h.store.admit(keyed(free))).toEqual({
        admitted: false,
        code: 'quota_exceeded',
        quota: { used: 6, limit: 6 },
      });
      const acc = await account(h.store, 5);
      const billed = admitted(await h.store.admit(keyed(free, { overflow: bill(acc.id) })));
      expect(billed).toMatchObject({ billed: true, quota: { used: 6, limit: 6 } });
    });
  });
}

/**
 * Contract property (fast-check): every admission is decided exactly as a model of the rules predicts (D5 free
 * counters shared by a key and its network, billing, D16 balance ≥ 0, D11 release, the quota of the counter with
 * the fewest remaining), over random sequences of keyed and anonymous admissions, releases and credits.
 */
import fc from 'fast-check';
import type { Ticket } from '../../gateway/store/types';
import type { StoreHolder } from './helpers';
import { account, bill, counter, plan, uid } from './helpers';

type Op =
  { op: 'keyed' } | { op: 'anonymous' } | { op: 'release'; pick: number } | { op: 'credit'; amount: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ op: 'keyed' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'anonymous' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('release' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('credit' as const), amount: fc.integer({ min: 1, max: 4 }) }),
  },
);

/** What the rules say, kept in plain numbers. */
interface Model {
  key: number;
  network: number;
  balance: number;
}

type Held = { ticket: Ticket; counters: ('key' | 'network')[]; charged: number };

/** The model-based property. */
export function modelRules(h: StoreHolder): void {
  describe('model (fast-check)', () => {
    it('decides every admission as the model of the rules predicts, releases included', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(opArb, { maxLength: 40 }),
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 1, max: 3 }),
          async (ops, limit, netLimit, price) => {
            const acc = await account(h.store, 0);
            const [k, net] = [uid('key:'), uid('network:')];
            const m: Model = { key: 0, network: 0, balance: 0 };
            const held: Held[] = [];
            for (const o of ops) {
              if (o.op === 'credit') {
                await h.store.credit(acc.id, o.amount, null, plan().now);
                m.balance += o.amount;
              } else if (o.op === 'release') {
                const [gone] = held.splice(o.pick % Math.max(1, held.length), 1);
                if (!gone) continue;
                await h.store.release(gone.ticket);
                for (const c of gone.counters) m[c] -= 1;
                m.balance += gone.charged;
              } else if (o.op === 'anonymous') {
                const r = await h.store.admit(plan({ free: [counter(net, netLimit)] }));
                const free = m.network < netLimit;
                expect(r).toMatchObject({
                  admitted: free,
                  quota: { used: m.network + (free ? 1 : 0), limit: netLimit },
                });
                if (free && r.admitted) {
                  m.network += 1;
                  held.push({ ticket: r.ticket, counters: ['network'], charged: 0 });
                }
              } else {
                const r = await h.store.admit(
                  plan({ free: [counter(k, limit), counter(net, netLimit)], overflow: bill(acc.id, price) }),
                );
                const free = m.key < limit && m.network < netLimit;
                const billed = !free && m.balance >= price;
                // The quota is the counter with the fewest remaining after this request; a tie → the key (first).
                const [key, network] = [m.key + (free ? 1 : 0), m.network + (free ? 1 : 0)];
                const quota =
                  limit - key <= netLimit - network
                    ? { used: key, limit }
                    : { used: network, limit: netLimit };
                expect(r).toMatchObject({ admitted: free || billed, quota });
                if (r.admitted) {
                  expect(r).toMatchObject({ billed, charged: billed ? price : 0 });
                  if (free) [m.key, m.network] = [m.key + 1, m.network + 1];
                  if (billed) m.balance -= price;
                  held.push({
                    ticket: r.ticket,
                    counters: free ? ['key', 'network'] : [],
                    charged: r.charged,
                  });
                }
              }
              expect((await h.store.getAccount(acc.id))?.balance).toBe(m.balance);
            }
          },
        ),
        { numRuns: 40 },
      );
    });
  });
}

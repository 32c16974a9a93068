/**
 * Contract properties (fast-check) and concurrency: random sequences of admits, keeps, releases and credits keep
 * admitted ≤ allowance per counter, balance ≥ 0 and equal to the ledger's sum once every admission is settled (in
 * flight, a charge may be only a reservation: D34, D35), and refusals change nothing (D10, D16).
 */
import fc from 'fast-check';
import type { AdmissionPlan, Ticket } from '../../gateway/store/types';
import type { StoreHolder } from './helpers';
import { account, admitted, bill, counter, DAY0, plan, slot, snapshot, uid } from './helpers';

type Op =
  | { op: 'admit'; member: number }
  | { op: 'release'; pick: number }
  | { op: 'keep'; pick: number }
  | { op: 'credit'; amount: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant('admit' as const), member: fc.integer({ min: 0, max: 2 }) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('keep' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('credit' as const), amount: fc.integer({ min: 1, max: 5 }) }),
  },
);

interface Outstanding {
  ticket: Ticket;
  billed: boolean;
  charged: number;
}

/** Property and concurrency rules. */
export function propertyRules(h: StoreHolder): void {
  describe('properties (fast-check)', () => {
    it('random admits, keeps, releases and credits: admitted ≤ allowance, balance ≥ 0 = credits − charges = the ledger once settled, refusals change nothing', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(opArb, { maxLength: 30 }),
          fc.integer({ min: 0, max: 3 }),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 0, max: 4 }),
          async (ops, limit, price, startBalance) => {
            const acc = await account(h.store, startBalance);
            const [scope, k, net] = [uid('key:'), uid('key:'), uid('network:')];
            const mk = (m: number): AdmissionPlan =>
              plan({
                slots: [slot(scope, `198.51.100.${m}`)],
                free: [counter(k, limit), counter(net, limit + 1)],
                overflow: bill(acc.id, price),
                usage: [k],
              });
            const view = { accountId: acc.id, scopes: [slot(scope, 'x')], subjects: [k] };
            const live: Outstanding[] = [];
            const kept: Outstanding[] = [];
            let credits = startBalance;
            for (const o of ops) {
              if (o.op === 'credit') {
                await h.store.credit(acc.id, o.amount, null, plan().now);
                credits += o.amount;
              } else if (o.op === 'release') {
                const [gone] = live.splice(o.pick % Math.max(1, live.length), 1);
                if (gone) await h.store.release(gone.ticket);
              } else if (o.op === 'keep') {
                const [done] = live.splice(o.pick % Math.max(1, live.length), 1);
                if (done) {
                  await h.store.keep(done.ticket);
                  kept.push(done);
                }
              } else {
                const before = await snapshot(h.store, view);
                const r = await h.store.admit(mk(o.member));
                if (r.admitted) live.push({ ticket: r.ticket, billed: r.billed, charged: r.charged });
                else expect(await snapshot(h.store, view)).toEqual(before);
              }
              const s = await snapshot(h.store, view);
              const inFlight = live.reduce((sum, t) => sum + t.charged, 0);
              const charges = inFlight + kept.reduce((sum, t) => sum + t.charged, 0);
              expect([...live, ...kept].filter((t) => !t.billed).length).toBeLessThanOrEqual(limit);
              expect(s.balance).toBeGreaterThanOrEqual(0);
              expect(s.balance).toBe(credits - charges);
              // Kept charges are in the ledger; one in flight is there (direct) or only reserved (in memory).
              const ledger = s.ledger.reduce((sum, e) => sum + e.amount, 0);
              expect(ledger).toBeGreaterThanOrEqual(s.balance ?? NaN);
              expect(ledger).toBeLessThanOrEqual((s.balance ?? NaN) + inFlight);
              expect(s.slots[0]?.length ?? 0).toBeLessThanOrEqual(2);
            }
            for (const t of live.splice(0)) await h.store.keep(t.ticket);
            const s = await snapshot(h.store, view);
            expect(s.ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(s.balance);
          },
        ),
        { numRuns: 40 },
      );
    });
  });

  describe('concurrency', () => {
    it('N parallel billed admissions with a balance worth exactly K requests: exactly K are billed', async () => {
      const [n, k, price] = [40, 13, 3];
      const acc = await account(h.store, k * price);
      const results = await Promise.all(
        Array.from({ length: n }, () =>
          h.store.admit(plan({ free: [counter(uid('key:'), 0)], overflow: bill(acc.id, price) })),
        ),
      );
      expect(results.filter((r) => r.admitted && r.billed)).toHaveLength(k);
      expect(results.filter((r) => !r.admitted && r.code === 'no_credits')).toHaveLength(n - k);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(0);
      await Promise.all(results.map((r) => (r.admitted ? h.store.keep(r.ticket) : undefined)));
      // D35: one hourly row holding the k requests.
      expect((await h.store.ledger(acc.id, 100)).filter((e) => e.kind === 'charge')).toMatchObject([
        { count: k, amount: -k * price },
      ]);
    });

    it('N parallel free admissions on one counter: exactly `limit` are free', async () => {
      const id = uid('network:');
      const results = await Promise.all(
        Array.from({ length: 30 }, () => h.store.admit(plan({ free: [counter(id, 11)] }))),
      );
      expect(results.filter((r) => r.admitted)).toHaveLength(11);
      const used = results
        .flatMap((r) => (r.admitted && r.quota ? [r.quota.used] : []))
        .sort((a, b) => a - b);
      expect(used).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    });

    it('a faulty admission among concurrent ones fails alone', async () => {
      const acc = await account(h.store, 10);
      const k = uid('key:');
      const dup = plan({ free: [counter(k, 0)], overflow: bill(acc.id) });
      admitted(await h.store.admit(dup));
      const mk = () => plan({ free: [counter(k, 0)], overflow: bill(acc.id), usage: [k] });
      const outcomes = await Promise.allSettled(
        [mk(), dup, mk(), { ...mk(), now: Number.NaN }, mk()].map((p) => h.store.admit(p)),
      );
      expect(outcomes.map((o) => o.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
        'fulfilled',
      ]);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(6);
      expect((await h.store.usage([k], DAY0, DAY0))[0]).toMatchObject({ billed: 3 });
    });

    it('parallel releases of one ticket undo it once', async () => {
      const acc = await account(h.store, 5);
      const r = admitted(
        await h.store.admit(plan({ free: [counter(uid('key:'), 0)], overflow: bill(acc.id, 2) })),
      );
      await Promise.all(
        Array.from({ length: 10 }, () => h.store.release(JSON.parse(JSON.stringify(r.ticket)))),
      );
      expect((await h.store.getAccount(acc.id))?.balance).toBe(5);
    });
  });
}

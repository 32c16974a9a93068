/**
 * Credit leases across two holders (D33): two store instances on one Redis admit billed requests of one account under
 * concurrent load, most of them from their leases without a Redis call. Never more admitted than the balance pays
 * for, the balance never below zero, exact totals once the leases are back (balance 0, ledger sum, usage), and a
 * refusal only while what is left is parked in the holders' leases (D33's early-refusal bound).
 */
import { randomBytes } from 'node:crypto';
import { reconcile, type SharedStore } from '../../../gateway/store/shared';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(60_000);

const DAY = new Date().toISOString().slice(0, 10);

function plan(accountId: string, keyId: string, i: number): AdmissionPlan {
  return {
    id: `lease-${i}-${randomBytes(4).toString('hex')}`,
    now: Date.now(),
    day: DAY,
    slots: [],
    free: [{ id: `key:${keyId}`, limit: 0 }],
    overflow: { kind: 'bill', accountId, price: 3, refuse: 'no_credits' },
    usage: [`key:${keyId}`, `account:${accountId}`],
    keyId,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeShared('shared store: credit leases over two holders (D33)', () => {
  const { env } = useSharedEnv('lease');

  it('two holders under load: never over-admitted, balance ≥ 0, exact totals, refusals only while units are parked', async () => {
    const stores = [await env.open({ leases: true }), await env.open({ leases: true })] as [
      SharedStore,
      SharedStore,
    ];
    const [a, b] = stores;
    const acc = await a.createAccount(
      { email: `l${randomBytes(4).toString('hex')}@example.org` },
      Date.now(),
    );
    const requests = 3_000;
    await a.credit(acc.id, requests * 3, null, Date.now());
    const keyId = `lk${randomBytes(4).toString('hex')}`;
    let admitted = 0;
    let pending = 0;
    let refusals = 0;
    let i = 0;
    // D33's early-refusal bound: a refusal only when the owner has nothing left, so what remains is at most what the
    // holders' leases can park, plus what requests in flight at that moment are taking.
    const refusedWith = (remaining: number) => {
      const parkable = a.leases!.stats.largestGrant + b.leases!.stats.largestGrant;
      expect(remaining).toBeLessThanOrEqual(parkable + pending * 3);
      refusals += 1;
    };
    // Rounds of 50 concurrent admissions per holder (each answered and kept), until a round where, with every lease
    // back at the owner, nothing more is admitted.
    for (let round = 0; round < 400; round++) {
      const results = await Promise.all(
        stores.flatMap((s) =>
          Array.from({ length: 50 }, async () => {
            pending += 1;
            const r = await s.admit(plan(acc.id, keyId, i++));
            pending -= 1;
            if (r.admitted) admitted += 1;
            else refusedWith((requests - admitted) * 3);
            expect(admitted).toBeLessThanOrEqual(requests);
            if (r.admitted) await s.keep(r.ticket);
            return r;
          }),
        ),
      );
      for (const s of stores) expect((await s.getAccount(acc.id))?.balance).toBeGreaterThanOrEqual(0);
      const refused = results.filter((r) => !r.admitted);
      expect(new Set(refused.map((r) => (r.admitted ? '' : r.code)))).toEqual(
        new Set(refused.length > 0 ? ['no_credits'] : []),
      );
      if (refused.length === results.length) {
        if (admitted === requests) break;
        await sleep(700); // idle leases go back to the owner after 0.5 s (D33)
      }
    }
    expect(admitted).toBe(requests);
    expect(refusals).toBeGreaterThan(0);
    // Most of them decided in memory, from leases.
    const leased = a.leases!.stats.leased + b.leases!.stats.leased;
    expect(leased).toBeGreaterThan(requests / 2);
    for (const s of stores) await s.leases!.flush();
    for (const s of stores) expect((await s.getAccount(acc.id))?.balance).toBe(0);
    const ledger = await b.ledger(acc.id, 10_000);
    expect(ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(0);
    expect(ledger.filter((e) => e.kind === 'charge').reduce((sum, e) => sum - e.amount, 0)).toBe(
      requests * 3,
    );
    expect(await a.usage([`key:${keyId}`], DAY, DAY)).toEqual([
      { day: DAY, subject: `key:${keyId}`, free: 0, billed: requests, refused: 0 },
    ]);
    const report = await reconcile(a);
    expect(report.drifts).toEqual([]);
  });

  it('a holder that dies with a lease and unanswered admissions: the owner reclaims it at TTL and refunds them', async () => {
    const dead = await env.open({ leases: { ttlMs: 1_500, stopMs: 1_000 } });
    const live = await env.open({ leases: { ttlMs: 1_500, stopMs: 1_000 } });
    const acc = await live.createAccount(
      { email: `d${randomBytes(4).toString('hex')}@example.org` },
      Date.now(),
    );
    await live.credit(acc.id, 1_000, null, Date.now());
    await sleep(100); // the top-up's invalidation reaches the other instance (it would return the lease)
    const keyId = `dk${randomBytes(4).toString('hex')}`;
    // the dead holder takes a lease (a few requests: the first ones go to the owner, then it is granted one)
    let n = 0;
    for (let k = 0; k < 40 && dead.leases!.parked(acc.id) === 0; k++) {
      const r = await dead.admit(plan(acc.id, keyId, k));
      if (r.admitted) {
        await dead.keep(r.ticket);
        n += 1;
      }
      await sleep(5);
    }
    // two more admitted from its lease and never answered: the flush charges them in flight (pif)
    for (let k = 0; k < 2; k++) {
      const r = await dead.admit(plan(acc.id, keyId, 100 + k));
      expect(r.admitted && r.ticket.undo).toEqual({ v: 'lease-1' });
    }
    const parked = dead.leases!.parked(acc.id);
    expect(parked).toBeGreaterThan(0);
    await dead.leases!.flush(); // its kept units are posted, the two in flight charged; the lease stays
    expect((await live.getAccount(acc.id))?.balance).toBe(1_000 - (n + 2) * 3);
    dead.leases!.stop(); // dies: no more flushes, the lease is never returned
    const spendable = async () => {
      let got = 0;
      for (;;) {
        const r = await live.admit(plan(acc.id, keyId, 10_000 + got));
        if (!r.admitted) return got;
        await live.keep(r.ticket);
        got += 1;
      }
    };
    const before = await spendable();
    expect(before * 3).toBeLessThanOrEqual(1_000 - n * 3 - parked);
    await sleep(1_700);
    const after = await spendable();
    await live.leases!.flush();
    // 333 requests of 3 out of 1000, exactly, once the lease is back: the two never answered were refunded (D34)
    expect((before + after + n) * 3).toBe(999);
    expect((await live.getAccount(acc.id))?.balance).toBe(1);
    const ledger = await live.ledger(acc.id, 1_000);
    expect(ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(1);
  });
});

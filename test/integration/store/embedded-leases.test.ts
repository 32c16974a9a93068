/**
 * Leases on the embedded store with several holders (D33 with `workers: N`): two stores on one SQLite file in this
 * process, each a lease holder under its own name (as two workers are), sharing one manual clock so the TTL can be
 * passed. Exactness under 20x oversubscription (balance and free counters, D5's two counters), and a holder that
 * stops as kill -9 leaves it: its leases count until the TTL, then the other holder gets them; a later incarnation
 * of the same name replays its journal: what was kept is charged, nothing else, the balance never below zero.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { LEASE_DEFAULTS } from '../../../gateway/lease/lease';
import { EmbeddedStore } from '../../../gateway/store/embedded/store';
import type { AdmissionResult } from '../../../gateway/store/types';
import { account, bill, chargedIn, counter, plan, T0, uid } from '../../contract/helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function holders(clock: ManualClock) {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-leases-'));
  dirs.push(dir);
  const path = join(dir, 'geogate.db');
  const open = async (name: string) => {
    const s = new EmbeddedStore(path, undefined, {
      clock,
      admission: 'memory',
      sharedByProcesses: true,
      holderName: name,
    });
    await s.migrate();
    return s;
  };
  return { path, open, w1: await open('worker-1'), w2: await open('worker-2') };
}

const admittedOnes = (rs: AdmissionResult[]) =>
  rs.filter((r): r is Extract<AdmissionResult, { admitted: true }> => r.admitted);

test('20x oversubscription over 2 holders: exactly the balance is admitted, charged once kept, never below zero', async () => {
  const clock = new ManualClock(T0);
  const h = await holders(clock);
  try {
    const N = 150;
    const acc = await account(h.w1, N);
    const spent = uid('key:'); // a free allowance of 0: every request is billed
    const rs = await Promise.all(
      Array.from({ length: 20 * N }, (_, i) =>
        (i % 2 === 0 ? h.w1 : h.w2).admit(plan({ free: [counter(spent, 0)], overflow: bill(acc.id) })),
      ),
    );
    const ok = admittedOnes(rs);
    expect(ok).toHaveLength(N);
    expect(rs.filter((r) => !r.admitted && r.code === 'no_credits')).toHaveLength(19 * N);
    // Both holders admitted some (the leases were shared, not all drawn by one).
    expect(rs.filter((r, i) => i % 2 === 0 && r.admitted).length).toBeGreaterThan(0);
    expect(rs.filter((r, i) => i % 2 === 1 && r.admitted).length).toBeGreaterThan(0);
    await Promise.all(
      rs.map((r, i) => (r.admitted ? (i % 2 === 0 ? h.w1 : h.w2).keep(r.ticket) : undefined)),
    );
    await h.w1.foldNow();
    await h.w2.foldNow();
    expect((await h.w1.getAccount(acc.id))?.balance).toBe(0);
    expect(chargedIn(await h.w2.ledger(acc.id, 100))).toBe(N);
  } finally {
    await h.w1.close();
    await h.w2.close();
  }
}, 60_000);

test("D5: a free request needs a unit of both the key's and the network's counter; exactly the allowance is free", async () => {
  const clock = new ManualClock(T0);
  const h = await holders(clock);
  try {
    const acc = await account(h.w1, 1_000_000);
    const keyCounter = uid('key:');
    const net = uid('net:');
    const LIMIT = 40;
    const rs = await Promise.all(
      Array.from({ length: 20 * LIMIT }, (_, i) =>
        (i % 2 === 0 ? h.w1 : h.w2).admit(
          plan({ free: [counter(keyCounter, LIMIT), counter(net, LIMIT * 2)], overflow: bill(acc.id) }),
        ),
      ),
    );
    const ok = admittedOnes(rs);
    expect(ok).toHaveLength(20 * LIMIT);
    expect(ok.filter((r) => !r.billed)).toHaveLength(LIMIT);
    // Released free requests go back to the holder's lease and are free again (D11).
    const free = ok.filter((r) => !r.billed);
    const owner = (t: (typeof ok)[number]) => (rs.indexOf(t) % 2 === 0 ? h.w1 : h.w2);
    for (const r of free.slice(0, 5)) await owner(r).release(r.ticket);
    for (const r of ok) if (!free.slice(0, 5).includes(r)) await owner(r).keep(r.ticket);
    await h.w1.foldNow();
    await h.w2.foldNow();
    const again = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? h.w1 : h.w2).admit(
          plan({ free: [counter(keyCounter, LIMIT), counter(net, LIMIT * 2)], overflow: bill(acc.id) }),
        ),
      ),
    );
    expect(admittedOnes(again).filter((r) => !r.billed)).toHaveLength(5);
  } finally {
    await h.w1.close();
    await h.w2.close();
  }
}, 60_000);

test('kill -9 of a holder: its lease counts until the TTL, then the other holder gets it; its journal replayed by its next incarnation charges what was kept, and only that', async () => {
  const clock = new ManualClock(T0);
  const h = await holders(clock);
  const START = 400;
  let again: EmbeddedStore | null = null;
  try {
    const acc = await account(h.w1, START);
    const spent = uid('key:');
    const billed = () => plan({ free: [counter(spent, 0)], overflow: bill(acc.id) });
    // The first holder takes a lease by admitting a burst; it keeps 30 and leaves 10 in flight, then dies.
    const burst = admittedOnes(await Promise.all(Array.from({ length: 40 }, () => h.w1.admit(billed()))));
    expect(burst).toHaveLength(40);
    for (const r of burst.slice(0, 30)) await h.w1.keep(r.ticket);
    const leased = [...(h.w1.leaseHolder()?.leases().values() ?? [])].reduce((s, l) => s + l.row, 0);
    expect(leased).toBeGreaterThanOrEqual(40);
    await h.w1.abandon();
    clock.advance(1000);
    // While its lease lives, the other holder gets only what is not leased (A = balance - leased).
    let admitted2 = 0;
    for (let i = 0; i < START; i++) if ((await h.w2.admit(billed())).admitted) admitted2++;
    expect(admitted2).toBe(START - leased);
    // After the TTL, the dead holder's lease is the owner's again.
    // The living holder renews every second (its heartbeat; the timer's, called here on the manual clock).
    for (let t = 0; t <= LEASE_DEFAULTS.ttlMs; t += 1000) {
      clock.advance(1000);
      h.w2.leaseHolder()?.heartbeat();
    }
    const rows = h.w2.leaseHolder()?.ownerRows();
    let more = 0;
    for (let i = 0; i < START; i++) if ((await h.w2.admit(billed())).admitted) more++;
    expect(more).toBe(leased);
    expect(rows?.deadLeased(clock.now())).toBe(0); // reaped by the living holder's steps
    await h.w2.close(); // w2 never keeps: everything it admitted is released
    // The dead holder's next incarnation replays its journal: the 30 kept are charged (late: the lease was reclaimed;
    // the balance is there because w2 released everything), the 10 in flight are not.
    again = await h.open('worker-1');
    await again.foldNow();
    const balance = (await again.getAccount(acc.id))?.balance ?? -1;
    expect(balance).toBe(START - 30);
    expect(chargedIn(await again.ledger(acc.id, 100))).toBe(30);
  } finally {
    await again?.close();
    if (h.w2.db.open) await h.w2.close();
  }
}, 60_000);

test('kill -9 of a holder replaced at once: its journal is replayed and its leases voided before the TTL', async () => {
  const clock = new ManualClock(T0);
  const h = await holders(clock);
  const START = 300;
  const acc = await account(h.w1, START);
  const spent = uid('key:');
  const billed = () => plan({ free: [counter(spent, 0)], overflow: bill(acc.id) });
  const burst = admittedOnes(await Promise.all(Array.from({ length: 50 }, () => h.w1.admit(billed()))));
  for (const r of burst.slice(0, 20)) await h.w1.keep(r.ticket);
  await h.w1.abandon();
  const next = await h.open('worker-1'); // the primary's replacement takes the dead worker's slot
  try {
    await next.foldNow();
    expect((await next.getAccount(acc.id))?.balance).toBe(START - 20);
    // Nothing is leased by the dead incarnation any more: the other holder can have all the rest.
    let n = 0;
    for (let i = 0; i < START; i++) if ((await h.w2.admit(billed())).admitted) n++;
    expect(n).toBe(START - 20);
  } finally {
    await next.close();
    await h.w2.close();
  }
}, 60_000);

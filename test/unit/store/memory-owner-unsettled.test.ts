/**
 * The memory owner releases admissions nobody settles (a library's `admit` without `settle`) after the reservation
 * timeout, as the direct path's sweeper does: the units come back, nothing is charged, and a late keep is a no-op.
 * Without a timeout they are held until settled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { EmbeddedStore } from '../../../gateway/store/embedded/store';
import type { AdmissionPlan } from '../../../gateway/store/types';

const T0 = Date.UTC(2026, 10, 22, 10);
let dir: string;
let n = 0;

async function open(reservationTimeoutMs?: number) {
  const clock = new ManualClock(T0);
  const store = new EmbeddedStore(join(dir, `g${(n += 1)}.db`), undefined, {
    admission: 'memory',
    foldEveryMs: 3_600_000,
    backgroundCheckpoints: false,
    clock,
    ...(reservationTimeoutMs !== undefined ? { reservationTimeoutMs } : {}),
  });
  await store.migrate();
  const accountId = (await store.createAccount({ email: `u${n}@example.org` }, T0)).id;
  await store.credit(accountId, 10, null, T0);
  const plan = (): AdmissionPlan => ({
    id: `u${(n += 1)}`,
    now: clock.now(),
    day: '2026-11-22',
    slots: [],
    free: [{ id: 'key:u', limit: 0 }],
    overflow: { kind: 'bill', accountId, price: 5, refuse: 'no_credits' },
    usage: [],
    keyId: 'key_u',
  });
  return { store, clock, accountId, plan };
}

beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'gg-owner-unsettled-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('an admission never settled is released after the timeout; a late keep charges nothing', async () => {
  const { store, clock, accountId, plan } = await open(1_000);
  try {
    const a = await store.admit(plan());
    const b = await store.admit(plan());
    if (!a.admitted || !b.admitted) throw new Error('not admitted');
    expect(await store.admit(plan())).toMatchObject({ admitted: false, code: 'no_credits' });
    clock.advance(600);
    await store.keep(b.ticket); // settled in time: charged
    clock.advance(500); // a is 1,100 ms old
    expect(store.memoryOwner()?.sweep()).toBe(1);
    await store.keep(a.ticket); // too late: a no-op
    await store.memoryOwner()?.foldNow();
    expect((await store.getAccount(accountId))?.balance).toBe(5);
    const charges = (await store.ledger(accountId, 10)).filter((e) => e.kind === 'charge');
    expect(charges.reduce((s, e) => s + (e.count ?? 0), 0)).toBe(1);
    // The released units are free again.
    expect(await store.admit(plan())).toMatchObject({ admitted: true });
  } finally {
    await store.close();
  }
});

test('without a timeout an unsettled admission is held', async () => {
  const { store, clock, plan } = await open();
  try {
    expect(await store.admit(plan())).toMatchObject({ admitted: true });
    expect(await store.admit(plan())).toMatchObject({ admitted: true });
    clock.advance(3_600_000);
    expect(store.memoryOwner()?.sweep()).toBe(0);
    expect(await store.admit(plan())).toMatchObject({ admitted: false, code: 'no_credits' });
  } finally {
    await store.close();
  }
});

/**
 * `StoreConfig.drainIntervalMs` (shared store, built by createStore): the ledger drain runs at that interval, so a
 * caller that drains by hand (the benchmarks) sees charges reach PostgreSQL only when it flushes; the default
 * (250 ms) drains on its own.
 */
import { Client } from 'pg';
import { systemClock, utcDay } from '../../../gateway/core/clock';
import { createStore, type AdmissionPlan, type Store } from '../../../gateway/store';
import { createTestDatabase, type TestDatabase } from '../../helpers/pg-database';
import { deletePrefix, LOCAL_REDIS_URL, uniquePrefix } from '../../helpers/redis-server';
import { describeShared } from './fixture';

describeShared('drainIntervalMs through createStore', () => {
  let db: TestDatabase | null = null;
  const stores: Store[] = [];
  const prefixes: string[] = [];
  afterAll(async () => {
    for (const s of stores) await s.close();
    for (const p of prefixes) await deletePrefix(LOCAL_REDIS_URL, p);
    await db?.drop();
  });

  /** A store with one account of 10 units and one billed, kept admission; its charges in the ledger after 800 ms. */
  async function chargesAfterAWhile(
    drainIntervalMs?: number,
  ): Promise<{ store: Store; charges: () => Promise<number> }> {
    db ??= await createTestDatabase();
    const prefix = uniquePrefix('drain-interval');
    prefixes.push(prefix);
    const store = await createStore(
      {
        kind: 'shared',
        postgres: (db as TestDatabase).url,
        redis: LOCAL_REDIS_URL,
        keyPrefix: prefix,
        ...(drainIntervalMs !== undefined ? { drainIntervalMs } : {}),
      },
      { clock: systemClock },
    );
    stores.push(store);
    const now = Date.now();
    const acc = await store.createAccount({ email: `${prefix.replace(/\W/g, '')}@example.org` }, now);
    await store.credit(acc.id, 10, null, now);
    const plan: AdmissionPlan = {
      id: `adm_${prefix.replace(/\W/g, '')}`,
      now,
      day: utcDay(now),
      slots: [],
      free: [{ id: `account:${acc.id}`, limit: 0 }],
      overflow: { kind: 'bill', accountId: acc.id, price: 1, refuse: 'no_credits' },
      usage: [`account:${acc.id}`],
      keyId: null,
    };
    const r = await store.admit(plan);
    if (!r.admitted) throw new Error(`refused: ${r.code}`);
    await store.keep(r.ticket);
    await new Promise((resolve) => setTimeout(resolve, 800));
    // Read PostgreSQL directly: the store's own ledger() drains before it reads.
    const charges = async () => {
      const pg = new Client({ connectionString: (db as TestDatabase).url });
      await pg.connect();
      try {
        const r = await pg.query(
          "SELECT COALESCE(SUM(count), 0)::int AS n FROM ledger WHERE account_id = $1 AND kind = 'charge'",
          [acc.id],
        );
        return (r.rows[0] as { n: number }).n;
      } finally {
        await pg.end();
      }
    };
    return { store, charges };
  }

  test('the default interval drains on its own', async () => {
    const { charges } = await chargesAfterAWhile();
    expect(await charges()).toBe(1);
  });

  test('a long interval leaves the charge in Redis until the drain is flushed by hand', async () => {
    const { store, charges } = await chargesAfterAWhile(3_600_000);
    expect(await charges()).toBe(0);
    const drain = (store as unknown as { drain: { flush(): Promise<number> } }).drain;
    expect(await drain.flush()).toBeGreaterThanOrEqual(1);
    expect(await charges()).toBe(1);
  });
});

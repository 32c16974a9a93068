/**
 * The ledger drain's passes (issue 12): one pass applies a batch of every shard in ONE PostgreSQL transaction (not
 * one per shard), two instances draining the same streams at once apply each event exactly once without deadlock,
 * and a shard whose stream cannot be read does not hold back the others. Real PostgreSQL and Redis.
 */
import { randomBytes } from 'node:crypto';
import { Drain } from '../../../gateway/store/shared/drain';
import { SHARDS } from '../../../gateway/store/shared/layout';
import type { SharedStore } from '../../../gateway/store/shared';
import type { AdmissionPlan } from '../../../gateway/store/types';
import { billedPlan, describeShared, useSharedEnv, type SharedEnv } from './fixture';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 10, 26, 12);
const PRICE = 3;

/** `n` accounts with `credit` each, on at least `shards` different shards. */
async function accounts(store: SharedStore, n: number, credit: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const acc = await store.createAccount({ email: `d${randomBytes(5).toString('hex')}@example.org` }, T0);
    await store.credit(acc.id, credit, null, T0);
    ids.push(acc.id);
  }
  return ids;
}

const billed = (accountId: string, i: number): AdmissionPlan => billedPlan(accountId, i, 'drain', T0, PRICE);

/** Admit and keep `plans` (each charged PRICE), spread over `stores`. */
async function charge(stores: SharedStore[], plans: AdmissionPlan[]): Promise<void> {
  await Promise.all(
    plans.map(async (p, i) => {
      const s = stores[i % stores.length] as SharedStore;
      const r = await s.admit(p);
      if (!r.admitted || !r.billed) throw new Error(`plan ${p.id} not billed`);
      await s.keep(r.ticket);
    }),
  );
}

/** Charged requests (D35: the counts of the hourly rows), charge rows and balances as PostgreSQL holds them. */
async function pgState(store: SharedStore, ids: string[]) {
  const charges = await store
    .knex('ledger')
    .whereIn('account_id', ids)
    .andWhere({ kind: 'charge' })
    .select(store.knex.raw('COALESCE(SUM(count), 0) AS c, COUNT(*) AS n'));
  const balances = await store.knex('accounts').whereIn('id', ids).orderBy('id').select('id', 'balance');
  const sums = await store
    .knex('ledger')
    .whereIn('account_id', ids)
    .groupBy('account_id')
    .orderBy('account_id')
    .select('account_id')
    .sum<{ account_id: string; s: string }[]>({ s: 'amount' });
  return {
    charges: Number(charges[0]?.c),
    rows: Number(charges[0]?.n),
    balances: balances.map((b) => Number(b.balance)),
    ledgerSums: sums.map((s) => Number(s.s)),
  };
}

function suite(env: SharedEnv): void {
  test('one pass drains the events of many shards in one transaction, exactly', async () => {
    const store = await env.open({ drainIntervalMs: 1e9 });
    const ids = await accounts(store, 12, 1_000);
    await store.drain.flush(); // the top-ups
    const plans = Array.from({ length: 120 }, (_, i) => billed(ids[i % ids.length] as string, i));
    await charge([store], plans);
    // The events really sit in several shards' streams.
    let streams = 0;
    for (let shard = 0; shard < SHARDS; shard++)
      if (Number(await store.redis.xlen(store.layout.stream(shard))) > 0) streams += 1;
    expect(streams).toBeGreaterThan(4);

    const begins: string[] = [];
    const onQuery = (q: { sql: string }) => {
      if (/^begin/i.test(q.sql.trim())) begins.push(q.sql);
    };
    store.knex.on('query', onQuery);
    try {
      expect(await store.drain.flush()).toBe(120);
    } finally {
      store.knex.off('query', onQuery);
    }
    expect(begins).toHaveLength(1);

    const s = await pgState(store, ids);
    expect(s.charges).toBe(120);
    expect(s.balances).toEqual(ids.map(() => 1_000 - 10 * PRICE));
    expect(s.ledgerSums).toEqual(s.balances);
    expect(await store.drain.flush()).toBe(0); // nothing left, nothing applied twice
    expect((await pgState(store, ids)).charges).toBe(120);
  });

  test('two instances draining the same streams at once apply each event once', async () => {
    const [a, b] = [await env.open({ drainIntervalMs: 1e9 }), await env.open({ drainIntervalMs: 1e9 })];
    const ids = await accounts(a, 10, 10_000);
    for (let round = 0; round < 3; round++) {
      const plans = Array.from({ length: 200 }, (_, i) =>
        billed(ids[i % ids.length] as string, round * 1000 + i),
      );
      await charge([a, b], plans);
      // Both flush the same streams concurrently, twice each: every event is applied by exactly one of them.
      await Promise.all([a.drain.flush(), b.drain.flush(), a.drain.flush(), b.drain.flush()]);
    }
    const s = await pgState(a, ids);
    expect(s.charges).toBe(600);
    expect(s.balances).toEqual(ids.map(() => 10_000 - 60 * PRICE));
    expect(s.ledgerSums).toEqual(s.balances);
  });

  test('two instances draining charges of the same keys and hours at once: one row each, every event once', async () => {
    const [a, b] = [await env.open({ drainIntervalMs: 1e9 }), await env.open({ drainIntervalMs: 1e9 })];
    const ids = await accounts(a, 4, 10_000);
    const keys = ids.map((_, i) => `drainhk${i}${randomBytes(3).toString('hex')}`);
    for (let round = 0; round < 3; round++) {
      // Two hours, four accounts with a key each: 8 hourly rows that both instances' passes upsert concurrently.
      const plans = Array.from({ length: 200 }, (_, i) => ({
        ...billed(ids[i % ids.length] as string, round * 1000 + i),
        keyId: keys[i % ids.length] as string,
        now: T0 + (Math.floor(i / 4) % 2) * 3_600_000,
      }));
      await charge([a, b], plans);
      await Promise.all([a.drain.flush(), b.drain.flush(), a.drain.flush(), b.drain.flush()]);
    }
    const s = await pgState(a, ids);
    expect(s.charges).toBe(600);
    expect(s.rows).toBe(8);
    expect(s.balances).toEqual(ids.map(() => 10_000 - 150 * PRICE));
    expect(s.ledgerSums).toEqual(s.balances);
  });

  test('a shard whose stream cannot be read does not hold back the others', async () => {
    const store = await env.open({ drainIntervalMs: 1e9 });
    const ids = await accounts(store, 8, 1_000);
    await store.drain.flush();
    const plans = Array.from({ length: 64 }, (_, i) => billed(ids[i % ids.length] as string, i));
    await charge([store], plans);
    // A drain whose Redis refuses XRANGE on one shard's stream (as a Redis Cluster node that is down would).
    let broken = 0;
    while (Number(await store.redis.xlen(store.layout.stream(broken))) === 0) broken += 1;
    const brokenStream = store.layout.stream(broken);
    const redis = new Proxy(store.redis, {
      get(target, prop, receiver) {
        if (prop === 'xrange')
          return (key: string, ...rest: (string | number)[]) =>
            key === brokenStream
              ? Promise.reject(new Error('CLUSTERDOWN The cluster is down'))
              : target.xrange(key, ...(rest as ['-', '+', 'COUNT', number]));
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const drain = new Drain(redis, store.knex, store.layout);
    await expect(drain.flush()).rejects.toThrow(/CLUSTERDOWN/);
    const left = Number(await store.redis.xlen(brokenStream));
    expect(left).toBeGreaterThan(0); // the broken shard's events wait in its stream
    for (let shard = 0; shard < SHARDS; shard++)
      if (shard !== broken) expect(Number(await store.redis.xlen(store.layout.stream(shard)))).toBe(0);
    // Once the shard can be read again, its events are applied too: every charge once.
    expect(await store.drain.flush()).toBe(left);
    const s = await pgState(store, ids);
    expect(s.charges).toBe(64);
    expect(s.ledgerSums).toEqual(s.balances);
  });
}

describeShared('ledger drain passes (one Redis)', () => {
  const { env } = useSharedEnv('drainpass');
  suite(env);
});

describeShared(
  'ledger drain passes (Redis Cluster)',
  () => {
    const { env } = useSharedEnv('drainpass', 'cluster');
    suite(env);
  },
  ['redis-server'],
);

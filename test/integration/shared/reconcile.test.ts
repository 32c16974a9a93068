/**
 * `geogate reconcile` (reconcileCommand): no drift after normal traffic, and a drift that really exists (a wallet
 * or a counter changed behind the store's back) is found and reported with exit code 1. Also `geogate migrate`.
 */
import { Redis } from 'ioredis';
import { migrateCommand, reconcileCommand } from '../../../gateway/store/shared';
import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 10, 22, 10);
const DAY = '2026-11-22';

describeShared('reconcile and migrate commands (shared store)', () => {
  const { env } = useSharedEnv('recon');

  it('migrate is idempotent', async () => {
    const cfg = { postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix };
    expect(await migrateCommand(cfg)).toEqual({ text: 'PostgreSQL schema is up to date', exitCode: 0 });
    expect((await migrateCommand(cfg)).exitCode).toBe(0);
  });

  it('reports no drift after traffic, then finds a tampered balance and a tampered counter', async () => {
    const store = await env.open();
    const acc = await store.createAccount({ email: 'recon@example.org' }, T0);
    await store.credit(acc.id, 20, null, T0);
    for (let i = 0; i < 6; i++) {
      const r = await store.admit({
        id: `recon-${i}`,
        now: T0,
        day: DAY,
        slots: [],
        free: [{ id: 'key:key_recon', limit: 3 }],
        overflow: { kind: 'bill', accountId: acc.id, price: 2, refuse: 'no_credits' },
        usage: ['key:key_recon'],
        keyId: 'key_recon',
      });
      if (i === 5 && r.admitted) await store.release(r.ticket);
    }
    const cfg = { postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix };
    const clean = await reconcileCommand(cfg);
    expect(clean.report.drifts).toEqual([]);
    expect(clean.report.wallets).toBe(1);
    expect(clean.report.counters).toBe(1);
    expect(clean.exitCode).toBe(0);
    expect(clean.text).toMatch(/no drift/);

    const r = new Redis(env.redis);
    await r.hincrby(store.layout.wallet(acc.id), 'b', 5);
    await r.incr(store.layout.counter('key:key_recon', DAY));
    r.disconnect();
    const drifted = await reconcileCommand(cfg);
    expect(drifted.exitCode).toBe(1);
    expect(drifted.report.drifts).toEqual([
      { kind: 'balance', subject: acc.id, redis: 20 - 4 + 5, postgres: 16 },
      { kind: 'counter', subject: `${DAY} key:key_recon`, redis: 4, postgres: 3 },
    ]);
    expect(drifted.text).toMatch(/drift balance/);
  });
});

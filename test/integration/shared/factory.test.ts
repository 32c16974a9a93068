/**
 * The config path (createStore with `kind: shared`) and readiness for /readyz: both databases reachable → true/true;
 * PostgreSQL cut (through a TCP proxy) → postgres false; Redis stopped (a private redis-server) → redis false.
 */
import { ManualClock } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { SharedStore } from '../../../gateway/store/shared';
import { TcpProxy } from '../../helpers/pg-proxy';

import { describeShared, useSharedEnv } from './fixture';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 10, 22, 10);

describeShared(
  'shared store: factory and readiness',
  () => {
    const proxy = new TcpProxy({ host: '127.0.0.1', port: 5432 });
    afterAll(() => proxy.cut()); // before the env's cleanup, as the env's afterAll is declared after it
    const { env, redis } = useSharedEnv('factory', 'private');
    beforeAll(() => proxy.listen());

    it('createStore({ kind: "shared" }) opens a migrated, working shared store', async () => {
      const store = await createStore(
        { kind: 'shared', postgres: env.db.url, redis: env.redis, keyPrefix: env.prefix },
        { clock: new ManualClock(T0) },
      );
      try {
        expect(store).toBeInstanceOf(SharedStore);
        const acc = await store.createAccount({ email: 'factory@example.org' }, T0);
        expect((await store.credit(acc.id, 7, 'top-1', T0)).balance).toBe(7);
        expect((await store.credit(acc.id, 7, 'top-1', T0)).replayed).toBe(true);
        expect((await store.ledger(acc.id, 10)).map((e) => [e.kind, e.amount, e.ref])).toEqual([
          ['topup', 7, 'top-1'],
        ]);
      } finally {
        await store.close();
      }
    });

    it('readiness reports each database', async () => {
      const store = await env.open({ postgres: proxy.urlFor(env.db.url) });
      expect(await store.readiness()).toEqual({ redis: true, postgres: true });
      await proxy.cut();
      expect(await store.readiness()).toEqual({ redis: true, postgres: false });
      await proxy.listen();
      await redis.stop();
      expect(await store.readiness()).toEqual({ redis: false, postgres: true });
      await redis.start();
      const deadline = Date.now() + 10_000;
      while (!(await store.readiness()).redis) {
        if (Date.now() > deadline) throw new Error('redis did not come back');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await store.readiness()).toEqual({ redis: true, postgres: true });
    });
  },
  ['redis-server'],
);

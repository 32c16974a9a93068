/**
 * onStoreFailure through the gateway (issue 4, acceptance 6): with the shared store's Redis (a private redis-server
 * the test starts, kills and restarts) down, `closed` answers 503 store_unavailable (problem+json) and `open` serves
 * anonymous traffic uncounted; after Redis returns both count again with no manual step, and nothing served while
 * Redis was down is counted afterwards.
 */
import { call } from '../../helpers/gateway-harness';
import { useBackendProcess } from '../../helpers/gateway-processes';

import { describeShared, msUntil, startPair, useSharedEnv, type Pair } from './fixture';

jest.setTimeout(120_000);

const DAY = '2026-11-22';
const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';

describeShared(
  'onStoreFailure with the shared store',
  () => {
    let closed: Pair;
    let open: Pair;
    afterAll(async () => {
      await closed?.close();
      await open?.close();
    }); // declared first: runs before the env's and the backend's cleanup
    const backend = useBackendProcess();
    const { env, redis } = useSharedEnv('modes', 'private');
    beforeAll(async () => {
      closed = await startPair(env, 'A', backend.url, { onStoreFailure: 'closed' });
      open = await startPair(env, 'A', backend.url, { onStoreFailure: 'open' });
    });

    it('closed: 503 store_unavailable while Redis is down; open: served uncounted; both recover by themselves', async () => {
      const get = (p: Pair, i: 0 | 1, ip: string) =>
        call(p.instances[i].mainUrl, REVERSE, { headers: { 'x-forwarded-for': ip } });
      expect((await get(closed, 0, '203.0.113.71')).status).toBe(200);
      expect((await get(open, 1, '203.0.113.72')).status).toBe(200);

      await redis.stop();
      const down = await get(closed, 1, '203.0.113.71');
      expect(down.status).toBe(503);
      expect(down.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(down.json).toMatchObject({ code: 'store_unavailable', status: 503 });
      for (let i = 0; i < 5; i++)
        expect((await get(open, (i % 2) as 0 | 1, '203.0.113.72')).status).toBe(200);

      await redis.start();
      await msUntil(
        async () => (await get(closed, 0, '203.0.113.71')).status === 200,
        'the closed gateway recovering',
        10_000,
      );
      // Each instance has its own Redis connection and reconnects on its own backoff: until the open instance's
      // connection is back its requests are (rightly) served uncounted, so the counted request waits for it.
      await msUntil(
        async () => (await open.instances[0].store.readiness()).redis === true,
        'the open instance reconnecting',
        10_000,
      );
      expect((await get(open, 0, '203.0.113.72')).status).toBe(200);

      const store = closed.instances[0].store;
      const rows = await store.usage(['network:203.0.113.71/32', 'network:203.0.113.72/32'], DAY, DAY);
      const free = Object.fromEntries(rows.map((r) => [r.subject, r.free]));
      expect(free['network:203.0.113.71/32']).toBe(2); // before and after; the 503s were not counted
      expect(free['network:203.0.113.72/32']).toBe(2); // the 5 served while Redis was down were not counted
    });
  },
  ['redis-server'],
);

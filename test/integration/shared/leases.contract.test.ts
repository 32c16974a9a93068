/**
 * The store contract against the shared store with credit leases on (D33, the default), on one Redis and on a
 * three-node Redis Cluster: plans the holder decides in memory and those the owner's script decides keep every rule
 * of the port. (Part of `npm test`; `npm run test:leases` runs this file alone.)
 */
import { describeStoreContract } from '../../contract/store-contract';
import { startRedisCluster } from '../../helpers/redis-cluster';
import { describeShared, sharedEnv } from './harness';

jest.setTimeout(90_000);

describeShared(
  'shared store with credit leases (D33)',
  () => {
    describeStoreContract('shared with leases (PostgreSQL + Redis)', async () => {
      const env = await sharedEnv(undefined, 'leasec');
      const store = await env.open({ leases: true });
      if (store.leases === null) throw new Error('the store opened without leases');
      return { store, cleanup: () => env.cleanup() };
    });
    describeStoreContract('shared with leases (PostgreSQL + Redis Cluster)', async () => {
      const cluster = await startRedisCluster();
      try {
        const env = await sharedEnv(cluster.url, 'leasek');
        const store = await env.open({ leases: true });
        if (!store.cluster || store.leases === null) throw new Error('not a cluster store with leases');
        return {
          store,
          cleanup: async () => {
            await env.cleanup();
            await cluster.stop();
          },
        };
      } catch (err) {
        await cluster.stop();
        throw err;
      }
    });
  },
  ['redis-server', 'redis-cli'],
);

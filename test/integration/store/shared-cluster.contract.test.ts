/**
 * The store contract against the shared store on a three-node Redis Cluster started by this test (Debian's
 * redis-server on free loopback ports) and a real PostgreSQL database of its own.
 */
import { describeStoreContract } from '../../contract/store-contract';
import { startRedisCluster } from '../../helpers/redis-cluster';
import { describeShared, sharedEnv } from '../shared/harness';

jest.setTimeout(90_000);

describeShared(
  'shared store on a three-node Redis Cluster',
  () => {
    describeStoreContract('shared (PostgreSQL + Redis Cluster)', async () => {
      const cluster = await startRedisCluster();
      try {
        const env = await sharedEnv(cluster.url, 'cluster');
        const store = await env.open({ leases: false });
        if (!store.cluster) throw new Error('the store did not open in cluster mode');
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

/** The store contract against the shared store: real PostgreSQL (own database) and one Redis (own key prefix). */
import { describeStoreContract } from '../../contract/store-contract';
import { describeShared, sharedEnv } from '../shared/harness';

jest.setTimeout(60_000);

describeShared('shared store on one Redis', () => {
  describeStoreContract('shared (PostgreSQL + Redis)', async () => {
    const env = await sharedEnv();
    const store = await env.open();
    return { store, cleanup: () => env.cleanup() };
  });
});

/** The store contract against the shared store without leases (each admission decided by the owner's script): real PostgreSQL (own database) and one Redis (own key prefix). leases.contract.test.ts runs it with leases. */
import { describeStoreContract } from '../../contract/store-contract';
import { describeShared, sharedEnv } from '../shared/harness';

jest.setTimeout(60_000);

describeShared('shared store on one Redis', () => {
  describeStoreContract('shared (PostgreSQL + Redis)', async () => {
    const env = await sharedEnv();
    const store = await env.open({ leases: false });
    return { store, cleanup: () => env.cleanup() };
  });
});

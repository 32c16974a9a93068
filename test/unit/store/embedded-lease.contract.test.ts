/**
 * The store contract against the embedded store as one lease holder of several processes (D33 with `workers: N`:
 * the SQLite rows own, this process holds leases; D34 journal per holder name). The contract's single process sees
 * what one worker of a group sees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { describeStoreContract, T0 } from '../../contract/store-contract';

describeStoreContract(
  'embedded, leases held by one of several processes (SQLite file + journal)',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geogate-store-'));
    const store = await createStore(
      {
        kind: 'embedded',
        path: join(dir, 'sub', 'geogate.db'),
        admission: 'memory',
        sharedByProcesses: true,
      },
      { clock: new ManualClock(T0) },
    );
    return {
      store,
      cleanup: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
);

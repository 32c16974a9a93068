/** The store contract against the embedded store with admission decided in memory (D33 owner, D34 journal). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { describeStoreContract, T0 } from '../../contract/store-contract';

describeStoreContract('embedded, decided in memory (SQLite file + journal)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-store-'));
  const store = await createStore(
    { kind: 'embedded', path: join(dir, 'sub', 'geogate.db'), admission: 'memory' },
    { clock: new ManualClock(T0) },
  );
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

/**
 * The store contract against the embedded store as the gateway runs it: crash recovery on, so the in-flight log's row
 * is each admission's release mark (inflight.ts). The timeout is a year, so the sweeper never releases an admission
 * of these tests, which move the clock by days.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { createStore } from '../../../gateway/store';
import { describeStoreContract, T0 } from '../../contract/store-contract';

describeStoreContract('embedded (SQLite file, in-flight log as release mark)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'geogate-store-'));
  const clock = new ManualClock(T0);
  const store = await createStore(
    { kind: 'embedded', path: join(dir, 'geogate.db'), reservationTimeoutMs: 365 * 86_400_000 },
    { clock },
  );
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

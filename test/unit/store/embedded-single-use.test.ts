/** Embedded single-use marks beyond the contract: they survive reopening the SQLite file; expired rows are pruned. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { createStore, EmbeddedStore } from '../../../gateway/store';
import { T0 } from '../../contract/helpers';

const MIN15 = 15 * 60_000;
let dir: string;
const open = async (): Promise<EmbeddedStore> =>
  (await createStore(
    { kind: 'embedded', path: join(dir, 'g.db') },
    { clock: new ManualClock(T0) },
  )) as EmbeddedStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'geogate-single-use-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('embedded single-use marks', () => {
  it('a consumed id stays consumed after the store is closed and reopened on the same file', async () => {
    const first = await open();
    expect(await first.consumeOnce('link:abc', T0 + MIN15, T0)).toBe(true);
    await first.close();
    const again = await open();
    try {
      expect(await again.isConsumed('link:abc', T0 + 1)).toBe(true);
      expect(await again.consumeOnce('link:abc', T0 + MIN15, T0 + 1)).toBe(false);
      expect(await again.isConsumed('link:abc', T0 + MIN15)).toBe(false);
    } finally {
      await again.close();
    }
  });

  it('prunes expired rows (at most every ten minutes of callers time), keeping unexpired ones', async () => {
    const store = await open();
    try {
      const rows = () => store.db.prepare('SELECT id FROM single_use ORDER BY id').pluck().all();
      expect(await store.consumeOnce('a-short', T0 + 1_000, T0)).toBe(true);
      expect(await store.consumeOnce('b-long', T0 + 10 * MIN15, T0)).toBe(true);
      // 5 minutes later: not yet due, the expired row stays.
      expect(await store.consumeOnce('c-next', T0 + 2 * MIN15, T0 + 5 * 60_000)).toBe(true);
      expect(rows()).toEqual(['a-short', 'b-long', 'c-next']);
      // 11 minutes later: due; only the expired row goes.
      expect(await store.consumeOnce('d-later', T0 + 3 * MIN15, T0 + 11 * 60_000)).toBe(true);
      expect(rows()).toEqual(['b-long', 'c-next', 'd-later']);
    } finally {
      await store.close();
    }
  });
});

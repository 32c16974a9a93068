/** Embedded-store specifics beyond the contract: pragmas, folders, pruning, foreign tickets. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAY_MS, ManualClock, utcDay } from '../../../gateway/core/clock';
import { createStore, EmbeddedStore } from '../../../gateway/store';
import { admitted, counter, expectFault, plan, T0 } from '../../contract/helpers';

let dir: string;
let store: EmbeddedStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geogate-internals-'));
  store = (await createStore(
    { kind: 'embedded', path: join(dir, 'a', 'b', 'g.db') },
    { clock: new ManualClock(T0) },
  )) as EmbeddedStore;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('embedded store', () => {
  it('creates the parent folders and opens the file in WAL mode with synchronous=NORMAL and foreign keys', () => {
    expect(existsSync(join(dir, 'a', 'b', 'g.db'))).toBe(true);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('synchronous', { simple: true })).toBe(1);
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('refuses to release a ticket it did not issue', async () => {
    await expectFault(store.release({ planId: 'p', undo: { v: 2 } }));
    await expectFault(store.release({ planId: 'p', undo: null }));
  });

  it('rejects a plan whose now is not an integer', async () => {
    await expectFault(store.admit({ ...plan(), now: Number.NaN }));
  });

  it('prunes after two days: old release marks (a late release is a no-op) and old daily counters', async () => {
    const old = admitted(await store.admit(plan({ free: [counter('network:x', 1)], usage: ['u:old'] })));
    const later = T0 + 3 * DAY_MS;
    admitted(await store.admit(plan({ now: later, free: [counter('network:y', 1)] })));
    // The pruner marks the highest admission at each pass; rows older than a mark two days old go.
    admitted(await store.admit(plan({ now: later + 2 * DAY_MS + 1, free: [counter('network:z', 1)] })));
    await store.release(old.ticket);
    const rows = store.db.prepare('SELECT day, counter_id, used FROM counters_daily ORDER BY day').all();
    expect(rows).toEqual([
      { day: utcDay(later), counter_id: 'network:y', used: 1 },
      { day: utcDay(later + 2 * DAY_MS + 1), counter_id: 'network:z', used: 1 },
    ]);
    // Only the newest admission is younger than two days; the older release marks are gone.
    expect(store.db.prepare('SELECT plan_id FROM admissions').pluck().all()).toHaveLength(1);
    // The late release changed nothing: the usage history of that day still counts the request.
    expect(await store.usage(['u:old'], '2000-01-01', '2100-01-01')).toEqual([
      { day: utcDay(T0), subject: 'u:old', free: 1, billed: 0, refused: 0 },
    ]);
  });
});

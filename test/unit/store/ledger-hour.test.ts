/** writeHourlyCharges (D35): the embedded store's upsert of hourly charge rows, as the in-memory fold calls it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../gateway/core/clock';
import { createStore, EmbeddedStore } from '../../../gateway/store';
import { HOUR_MS, hourlyChargeRef, hourStartOf } from '../../../gateway/store/charge-hour';
import { writeHourlyCharges } from '../../../gateway/store/embedded/ledger-hour';
import { T0 } from '../../contract/helpers';

let dir: string;
let store: EmbeddedStore;
let acc: string;
const H = hourStartOf(T0);
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geogate-ledger-hour-'));
  store = (await createStore(
    { kind: 'embedded', path: join(dir, 'g.db') },
    { clock: new ManualClock(T0) },
  )) as EmbeddedStore;
  acc = (await store.createAccount({ email: 'h@example.org' }, T0)).id;
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The account's charge rows, oldest first. */
function chargeRows() {
  return store.db
    .prepare(
      "SELECT key_id, ref, amount, count, hour_start, created_at FROM ledger WHERE account_id = ? AND kind = 'charge' ORDER BY seq",
    )
    .all(acc);
}

describe('writeHourlyCharges', () => {
  it('adds to one row per (account, key, hour), a null key apart from a key, and hours apart', () => {
    const tx = store.db.transaction(() =>
      writeHourlyCharges(store.db, [
        { accountId: acc, keyId: 'key_a', hourStart: H, count: 3, amount: 300 },
        { accountId: acc, keyId: null, hourStart: H, count: 1, amount: 100 },
        { accountId: acc, keyId: 'key_a', hourStart: H, count: 2, amount: 200 },
        { accountId: acc, keyId: 'key_a', hourStart: H + HOUR_MS, count: 1, amount: 100 },
      ]),
    );
    tx();
    tx(); // a second fold adds again (idempotency is the caller's journal position)
    expect(chargeRows()).toEqual([
      {
        key_id: 'key_a',
        ref: hourlyChargeRef('key_a', H),
        amount: -1000,
        count: 10,
        hour_start: H,
        created_at: H,
      },
      { key_id: null, ref: `charge ${H} -`, amount: -200, count: 2, hour_start: H, created_at: H },
      {
        key_id: 'key_a',
        ref: hourlyChargeRef('key_a', H + HOUR_MS),
        amount: -200,
        count: 2,
        hour_start: H + HOUR_MS,
        created_at: H + HOUR_MS,
      },
    ]);
  });

  it('takes back a netted release and removes a row left at count 0 and amount 0', () => {
    writeHourlyCharges(store.db, [{ accountId: acc, keyId: 'key_a', hourStart: H, count: 2, amount: 250 }]);
    writeHourlyCharges(store.db, [{ accountId: acc, keyId: 'key_a', hourStart: H, count: -1, amount: -100 }]);
    expect(chargeRows()).toMatchObject([{ amount: -150, count: 1 }]);
    writeHourlyCharges(store.db, [{ accountId: acc, keyId: 'key_a', hourStart: H, count: -1, amount: -150 }]);
    expect(chargeRows()).toEqual([]);
  });

  it('skips rows that add nothing and writes nothing when any row is malformed', () => {
    writeHourlyCharges(store.db, [{ accountId: acc, keyId: 'key_a', hourStart: H, count: 0, amount: 0 }]);
    expect(chargeRows()).toEqual([]);
    const good = { accountId: acc, keyId: 'key_a', hourStart: H, count: 1, amount: 100 };
    for (const bad of [
      { ...good, hourStart: H + 1 },
      { ...good, count: 1.5 },
      { ...good, amount: Number.NaN },
      { ...good, accountId: '' },
      { ...good, keyId: '' },
    ]) {
      expect(() => writeHourlyCharges(store.db, [good, bad])).toThrow(/hourly charge/);
    }
    expect(chargeRows()).toEqual([]);
  });
});

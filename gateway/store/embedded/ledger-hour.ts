/**
 * The embedded store's hourly charge rows (D35, charge-hour.ts): an upsert that adds requests and an amount to the
 * row of (account, key, UTC hour) and removes a row left at count 0 and amount 0. It runs inside the caller's
 * transaction and never touches the balance: the caller moves `accounts.balance` by the same amount in the same
 * transaction, so `balance = sum(ledger)` holds at every commit.
 */
import type Database from 'better-sqlite3';
import { hourlyChargeRef, requireHourlyCharge, type HourlyCharge } from '../charge-hour';
import { newOrderedId } from '../ids';

/** A prepared statement (an interface of its own, so the package's declarations can name it). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Prepared extends Database.Statement {}

/** Prepare the hourly-row statements on `db` (the hot path holds them in HotStatements). */
export function prepareHourly(
  db: Database.Database,
): Record<'hourAdd' | 'hourInsert' | 'hourDropEmpty', Prepared> {
  return {
    // The common case (the hour's row exists) is this one UPDATE by the unique (account_id, ref) index: no id drawn,
    // no index entry written (amount and count are not indexed).
    hourAdd: db.prepare(
      `UPDATE ledger SET amount = amount - ?, count = count + ? WHERE account_id = ? AND ref = ? AND kind = 'charge'
       RETURNING count, amount`,
    ),
    hourInsert: db.prepare(
      `INSERT INTO ledger (id, account_id, amount, kind, key_id, ref, created_at, count, hour_start)
       VALUES (?, ?, ?, 'charge', ?, ?, ?, ?, ?)`,
    ),
    hourDropEmpty: db.prepare(
      `DELETE FROM ledger WHERE account_id = ? AND ref = ? AND kind = 'charge' AND count = 0 AND amount = 0`,
    ),
  };
}

export type HourlyStatements = ReturnType<typeof prepareHourly>;

/**
 * Add `count` requests charged `amount` (positive minor units; both negative to take back a release) to the row of
 * (account, key, hour). The row's ledger amount moves by -amount; its createdAt is its hourStart.
 */
export function addHourlyCharge(
  st: HourlyStatements,
  accountId: string,
  keyId: string | null,
  hourStart: number,
  count: number,
  amount: number,
): void {
  const ref = hourlyChargeRef(keyId, hourStart);
  const after = st.hourAdd.get(amount, count, accountId, ref) as
    { count: number; amount: number } | undefined;
  if (after === undefined) {
    st.hourInsert.run(newOrderedId('led'), accountId, -amount, keyId, ref, hourStart, count, hourStart);
  } else if (after.count === 0 && after.amount === 0) {
    st.hourDropEmpty.run(accountId, ref);
  }
}

const prepared = new WeakMap<Database.Database, HourlyStatements>();

/**
 * Upsert aggregated charges into their hourly rows inside the caller's transaction (the balance is the caller's).
 * `amount` is positive minor units charged; `count` (and `amount`) may be negative for a netted release. Rows that
 * add nothing are skipped; a row left at count 0 and amount 0 is removed. A malformed row throws before any write.
 */
export function writeHourlyCharges(db: Database.Database, rows: HourlyCharge[]): void {
  for (const r of rows) requireHourlyCharge(r);
  let st = prepared.get(db);
  if (st === undefined) {
    st = prepareHourly(db);
    prepared.set(db, st);
  }
  for (const r of rows) {
    if (r.count === 0 && r.amount === 0) continue;
    addHourlyCharge(st, r.accountId, r.keyId, r.hourStart, r.count, r.amount);
  }
}

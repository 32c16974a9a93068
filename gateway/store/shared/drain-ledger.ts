/**
 * The ledger part of a drain pass (drain-apply.ts): rows of their own (top-ups, packages, adjustments) inserted once;
 * charges folded into their (account, key, UTC hour) rows (D35, charge-hour.ts); `accounts.balance` moved by exactly
 * what the rows moved, in the same transaction, so it always equals the ledger sum.
 */
import type { Knex } from 'knex';
import { hourlyChargeRef, hourStartOf } from '../charge-hour';
import { newOrderedId } from '../ids';

/** A ledger row of its own, as json_to_recordset reads it. */
export interface OwnRow {
  id: string;
  account_id: string;
  amount: number;
  kind: string;
  key_id: string | null;
  ref: string | null;
  created_at: number;
}

/** A drained release of a charge: its admission's account, id, key and time (the hour its charge went to). */
export interface ChargeRelease {
  accountId: string;
  id: string;
  keyId: string | null;
  at: number;
  amount: number;
}

/** What a batch does to the ledger. */
export interface LedgerDeltas {
  own: OwnRow[];
  /** Hourly rows by `${accountId}\t${ref}`: requests and ledger amount (negative: charged) to add. */
  hours: Map<string, HourDelta>;
  releases: ChargeRelease[];
}

interface HourDelta {
  account_id: string;
  key_id: string | null;
  ref: string;
  hour_start: number;
  count: number;
  amount: number;
}

/** Empty deltas. */
export function ledgerDeltas(): LedgerDeltas {
  return { own: [], hours: new Map(), releases: [] };
}

/** Add `count` requests charged `charged` units at `at` to the batch's hourly row of (account, key). */
export function addCharge(
  d: LedgerDeltas,
  accountId: string,
  keyId: string | null,
  at: number,
  count: number,
  charged: number,
): void {
  const hour = hourStartOf(at);
  const ref = hourlyChargeRef(keyId, hour);
  const k = `${accountId}\t${ref}`;
  const row = d.hours.get(k);
  if (row) {
    row.count += count;
    row.amount -= charged;
  } else {
    d.hours.set(k, { account_id: accountId, key_id: keyId, ref, hour_start: hour, count, amount: -charged });
  }
}

const CHUNK = 1_000;

/** Split rows into chunks (bounded statement size). */
export function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

/** The rows a statement returned. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

// Each statement sends its rows as one JSON text parameter (drain-apply.ts says why); WITH ORDINALITY keeps the
// order given, so the hourly rows, which concurrent drains share, are locked in one (sorted) order.

const OWN_INSERT = `INSERT INTO ledger (id, account_id, amount, kind, key_id, ref, created_at)
  SELECT id, account_id, amount, kind, key_id, ref, created_at
  FROM ROWS FROM (json_to_recordset(?::json)
    AS (id text, account_id text, amount bigint, kind text, key_id text, ref text, created_at bigint))
    WITH ORDINALITY AS x(id, account_id, amount, kind, key_id, ref, created_at, ord)
  ORDER BY ord
  ON CONFLICT DO NOTHING
  RETURNING account_id, amount`;

/** A charge recorded before D35 is a row of its own (ref = the admission id): its release deletes it. */
const LEGACY_DELETE = `DELETE FROM ledger l
  USING json_to_recordset(?::json) AS x(account_id text, ref text)
  WHERE l.kind = 'charge' AND l.account_id = x.account_id AND l.ref = x.ref
  RETURNING l.account_id, l.ref, l.amount`;

// An hourly row's createdAt is its hourStart (as in the embedded store).
const HOUR_UPSERT = `INSERT INTO ledger (id, account_id, amount, kind, key_id, ref, created_at, count, hour_start)
  SELECT id, account_id, amount, 'charge', key_id, ref, hour_start, count, hour_start
  FROM ROWS FROM (json_to_recordset(?::json)
    AS (id text, account_id text, amount bigint, key_id text, ref text, count bigint, hour_start bigint))
    WITH ORDINALITY AS x(id, account_id, amount, key_id, ref, count, hour_start, ord)
  ORDER BY ord
  ON CONFLICT (account_id, ref) DO UPDATE SET amount = ledger.amount + excluded.amount,
    count = ledger.count + excluded.count
  RETURNING account_id, ref, amount, count`;

const HOUR_DROP_EMPTY = `DELETE FROM ledger l
  USING json_to_recordset(?::json) AS x(account_id text, ref text)
  WHERE l.kind = 'charge' AND l.account_id = x.account_id AND l.ref = x.ref AND l.count = 0 AND l.amount = 0`;

const ACCOUNTS_LOCK = `SELECT id FROM accounts
  WHERE id IN (SELECT value FROM json_array_elements_text(?::json))
  ORDER BY id FOR UPDATE`;

const ACCOUNTS_ADD = `UPDATE accounts a SET balance = a.balance + x.n
  FROM json_to_recordset(?::json) AS x(id text, n bigint)
  WHERE a.id = x.id`;

type Moved = { account_id: string; amount: string | number };

/**
 * Releases first: a release whose charge is a row of its own deletes it; the others take their request back from
 * the hourly row of their admission's hour (netted in `hours` with the batch's admissions). Then the own rows, the
 * hourly rows (sorted), the emptied hourly rows removed, and the balances moved by exactly what the rows moved.
 */
export async function applyLedger(trx: Knex.Transaction, d: LedgerDeltas): Promise<void> {
  const balances = new Map<string, number>();
  const add = (acc: unknown, n: unknown) =>
    balances.set(String(acc), (balances.get(String(acc)) ?? 0) + Number(n));
  const legacy = new Set<string>();
  for (const part of chunks(d.releases)) {
    const rows = part.map((r) => ({ account_id: r.accountId, ref: r.id }));
    const gone = rowsOf<Moved & { ref: string }>(await trx.raw(LEGACY_DELETE, [JSON.stringify(rows)]));
    for (const r of gone) {
      add(r.account_id, -Number(r.amount));
      legacy.add(`${r.account_id}\t${r.ref}`);
    }
  }
  for (const r of d.releases)
    if (!legacy.has(`${r.accountId}\t${r.id}`)) addCharge(d, r.accountId, r.keyId, r.at, -1, -r.amount);
  for (const part of chunks(d.own)) {
    const ins = rowsOf<Moved>(await trx.raw(OWN_INSERT, [JSON.stringify(part)]));
    for (const r of ins) add(r.account_id, r.amount);
  }
  const hours = [...d.hours.entries()]
    .filter(([, h]) => h.count !== 0 || h.amount !== 0) // an admission and its release in one batch
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, h]) => ({ id: newOrderedId('led'), ...h }));
  const emptied: { account_id: string; ref: string }[] = [];
  for (const part of chunks(hours)) {
    const after = rowsOf<Moved & { ref: string; count: string | number }>(
      await trx.raw(HOUR_UPSERT, [JSON.stringify(part)]),
    );
    for (const r of after)
      if (Number(r.count) === 0 && Number(r.amount) === 0)
        emptied.push({ account_id: r.account_id, ref: r.ref });
    for (const h of part) add(h.account_id, h.amount);
  }
  for (const part of chunks(emptied)) await trx.raw(HOUR_DROP_EMPTY, [JSON.stringify(part)]);
  await moveBalances(trx, balances);
}

/** Move the balances, locking the accounts in id order first (the UPDATE's join would lock in its plan's order). */
async function moveBalances(trx: Knex.Transaction, balances: Map<string, number>): Promise<void> {
  const moved = [...balances.entries()]
    .filter(([, n]) => n !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, n]) => ({ id, n }));
  if (moved.length === 0) return;
  await trx.raw(ACCOUNTS_LOCK, [JSON.stringify(moved.map((m) => m.id))]);
  await trx.raw(ACCOUNTS_ADD, [JSON.stringify(moved)]);
}

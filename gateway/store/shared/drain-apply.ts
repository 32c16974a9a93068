/**
 * What a drain pass writes to PostgreSQL (drain.ts): the events of a batch folded into deltas (ledger rows, usage,
 * counters, balances) and applied in the pass's transaction, only the events not recorded before (shared_drained).
 * Row locks are taken in one global order (event ids as given, accounts by id, usage and counter rows sorted).
 */
import type { Knex } from 'knex';
import { newOrderedId } from '../ids';

/** One stream entry, fields by name (see the scripts for who writes which). */
export type StoreEvent = Record<string, string> & { t: string; e: string };

interface Deltas {
  usage: Map<string, [number, number, number]>;
  counters: Map<string, number>;
  inserts: Record<string, unknown>[];
  deletes: { accountId: string; ref: string }[];
}

const words = (s: string | undefined): string[] => (s ? s.split(' ').filter((w) => w !== '') : []);

/** Add one event's effect to the batch's deltas (a release is its admission with the opposite sign). */
function collect(d: Deltas, ev: StoreEvent): void {
  const add = <K>(m: Map<K, number>, k: K, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  const charged = Number(ev.c ?? 0);
  if (ev.t === 'adm' || ev.t === 'rel') {
    const sign = ev.t === 'adm' ? 1 : -1;
    // x: the requests of an aggregated event (a lease holder's flush, D33: admitted less released); absent: one
    const n = sign * Number(ev.x ?? 1);
    const col = ev.b === '1' ? 1 : 0;
    for (const subject of words(ev.u)) {
      const row = d.usage.get(`${ev.d}\t${subject}`) ?? [0, 0, 0];
      row[col] += n;
      d.usage.set(`${ev.d}\t${subject}`, row);
    }
    for (const counter of words(ev.f)) add(d.counters, `${ev.d}\t${counter}`, n);
    // an aggregated event (x) may be negative: refunds of charged admissions released later (D11), a reclaimed
    // lease's unsettled charges; it is one ledger row with the opposite amount
    if (charged !== 0 && ev.a) {
      if (sign > 0)
        d.inserts.push(ledgerRow(newOrderedId('led'), ev.a, -charged, 'charge', ev.k, ev.id, ev.n));
      else d.deletes.push({ accountId: ev.a, ref: String(ev.id) });
    }
  } else if (ev.t === 'top' && ev.a) {
    d.inserts.push(ledgerRow(String(ev.id), ev.a, charged, 'topup', '', ev.r, ev.n));
  } else if (ev.t === 'pkg' && ev.a) {
    d.inserts.push(ledgerRow(String(ev.id), ev.a, -charged, 'package', ev.k, '', ev.n));
  } else if (ev.t === 'adj' && ev.a) {
    // A balance forfeited at account deletion (account-lifecycle.ts).
    d.inserts.push(ledgerRow(String(ev.id), ev.a, -charged, 'adjustment', '', ev.r, ev.n));
  } else if (ev.t === 'ref') {
    for (const subject of words(ev.u)) {
      const row = d.usage.get(`${ev.d}\t${subject}`) ?? [0, 0, 0];
      row[2] += 1;
      d.usage.set(`${ev.d}\t${subject}`, row);
    }
  }
}

function ledgerRow(
  id: string,
  acc: string,
  amount: number,
  kind: string,
  key?: string,
  ref?: string,
  at?: string,
) {
  return {
    id,
    account_id: acc,
    amount,
    kind,
    key_id: key ? key : null,
    ref: ref ? ref : null,
    created_at: Number(at ?? 0),
  };
}

const CHUNK = 1_000;

/** Split rows into chunks (bounded statement size). */
function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(rows.slice(i, i + CHUNK));
  return out;
}

/*
 * Each statement below sends its rows as ONE JSON text parameter, unpacked in PostgreSQL by json_to_recordset: a
 * batch of 500 events is a handful of short statements instead of knex-compiled VALUES lists with thousands of
 * bindings, whose building was most of the drain's CPU on the gateway's event loop. WITH ORDINALITY keeps the rows in
 * the order given (ledger rows in insertion order; usage and counter rows sorted, so concurrent drains take their row
 * locks in one order and cannot deadlock).
 */

/** The ledger's columns as json_to_recordset reads them. */
const LEDGER_INSERT = `INSERT INTO ledger (id, account_id, amount, kind, key_id, ref, created_at)
  SELECT id, account_id, amount, kind, key_id, ref, created_at
  FROM ROWS FROM (json_to_recordset(?::json)
    AS (id text, account_id text, amount bigint, kind text, key_id text, ref text, created_at bigint))
    WITH ORDINALITY AS x(id, account_id, amount, kind, key_id, ref, created_at, ord)
  ORDER BY ord
  ON CONFLICT DO NOTHING
  RETURNING account_id, amount`;

const LEDGER_DELETE = `DELETE FROM ledger l
  USING json_to_recordset(?::json) AS x(account_id text, ref text)
  WHERE l.kind = 'charge' AND l.account_id = x.account_id AND l.ref = x.ref
  RETURNING l.account_id, l.amount`;

const USAGE_UPSERT = `INSERT INTO usage_daily (day, subject, free, billed, refused)
  SELECT day, subject, free, billed, refused
  FROM ROWS FROM (json_to_recordset(?::json)
    AS (day text, subject text, free bigint, billed bigint, refused bigint))
    WITH ORDINALITY AS x(day, subject, free, billed, refused, ord)
  ORDER BY ord
  ON CONFLICT (day, subject) DO UPDATE SET
    free = GREATEST(usage_daily.free + excluded.free, 0),
    billed = GREATEST(usage_daily.billed + excluded.billed, 0),
    refused = usage_daily.refused + excluded.refused`;

const USAGE_DROP_EMPTY = `DELETE FROM usage_daily u
  USING json_to_recordset(?::json) AS x(day text, subject text)
  WHERE u.day = x.day AND u.subject = x.subject AND u.free = 0 AND u.billed = 0 AND u.refused = 0`;

const COUNTERS_UPSERT = `INSERT INTO counters_daily (day, counter_id, used)
  SELECT day, counter_id, used
  FROM ROWS FROM (json_to_recordset(?::json) AS (day text, counter_id text, used bigint))
    WITH ORDINALITY AS x(day, counter_id, used, ord)
  ORDER BY ord
  ON CONFLICT (day, counter_id) DO UPDATE SET used = GREATEST(counters_daily.used + excluded.used, 0)`;

const DRAINED_INSERT = `INSERT INTO shared_drained (event_id, drained_at)
  SELECT value, ?::bigint FROM json_array_elements_text(?::json)
  ON CONFLICT (event_id) DO NOTHING
  RETURNING event_id`;

const ACCOUNTS_LOCK = `SELECT id FROM accounts
  WHERE id IN (SELECT value FROM json_array_elements_text(?::json))
  ORDER BY id FOR UPDATE`;

const ACCOUNTS_ADD = `UPDATE accounts a SET balance = a.balance + x.n
  FROM json_to_recordset(?::json) AS x(id text, n bigint)
  WHERE a.id = x.id`;

/** The rows a statement returned. */
function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/**
 * Ledger rows in, released charges out. `accounts.balance` follows exactly the rows inserted and deleted here, so it
 * always equals the ledger sum.
 */
async function applyLedger(trx: Knex.Transaction, d: Deltas): Promise<void> {
  const balances = new Map<string, number>();
  const add = (acc: unknown, n: unknown) =>
    balances.set(String(acc), (balances.get(String(acc)) ?? 0) + Number(n));
  for (const rows of chunks(d.inserts)) {
    const ins = rowsOf<{ account_id: string; amount: string }>(
      await trx.raw(LEDGER_INSERT, [JSON.stringify(rows)]),
    );
    for (const r of ins) add(r.account_id, r.amount);
  }
  for (const dels of chunks(d.deletes)) {
    const rows = dels.map((x) => ({ account_id: x.accountId, ref: x.ref }));
    const gone = rowsOf<{ account_id: string; amount: string }>(
      await trx.raw(LEDGER_DELETE, [JSON.stringify(rows)]),
    );
    for (const r of gone) add(r.account_id, -Number(r.amount));
  }
  const moved = [...balances.entries()]
    .filter(([, n]) => n !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, n]) => ({ id, n }));
  if (moved.length === 0) return;
  // Lock the rows in id order first (the UPDATE's join would lock them in its plan's order), then move them all.
  const ids = JSON.stringify(moved.map((m) => m.id));
  await trx.raw(ACCOUNTS_LOCK, [ids]);
  await trx.raw(ACCOUNTS_ADD, [JSON.stringify(moved)]);
}

/** Usage history: one upsert per chunk; rows a release emptied are dropped (as in the embedded store). */
async function applyUsage(trx: Knex.Transaction, d: Deltas): Promise<void> {
  const rows = [...d.usage.entries()]
    .filter(([, [f, b, r]]) => f !== 0 || b !== 0 || r !== 0) // an admission and its release in one batch
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, [free, billed, refused]]) => {
      const [day, subject] = k.split('\t');
      return { day: day ?? '', subject: subject ?? '', free, billed, refused };
    });
  for (const part of chunks(rows)) await trx.raw(USAGE_UPSERT, [JSON.stringify(part)]);
  const emptied = rows
    .filter((r) => r.free < 0 || r.billed < 0)
    .map((r) => ({ day: r.day, subject: r.subject }));
  for (const part of chunks(emptied)) await trx.raw(USAGE_DROP_EMPTY, [JSON.stringify(part)]);
}

/** Daily counters as the drained events moved them (for reconcile). */
async function applyCounters(trx: Knex.Transaction, d: Deltas): Promise<void> {
  const rows = [...d.counters.entries()]
    .filter(([, n]) => n !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, used]) => {
      const [day, id] = k.split('\t');
      return { day: day ?? '', counter_id: id ?? '', used };
    });
  for (const part of chunks(rows)) await trx.raw(COUNTERS_UPSERT, [JSON.stringify(part)]);
}

/** Write a batch's deltas (rows in a fixed order, so concurrent drains cannot deadlock). */
async function applyDeltas(trx: Knex.Transaction, d: Deltas): Promise<void> {
  await applyLedger(trx, d);
  await applyUsage(trx, d);
  await applyCounters(trx, d);
}

/** Parse XRANGE output into events. */
export function parseEntries(entries: [string, string[]][]): { id: string; ev: StoreEvent }[] {
  return entries.map(([id, fields]) => {
    const ev: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) ev[fields[i] ?? ''] = fields[i + 1] ?? '';
    return { id, ev: ev as StoreEvent };
  });
}

/**
 * Record the events' ids in shared_drained and apply the effect of those not recorded before (a replayed batch, or
 * one another instance drained first, changes nothing). `prefix` namespaces the ids (one per store's key prefix).
 */
export async function applyEvents(
  trx: Knex.Transaction,
  parsed: readonly { id: string; ev: StoreEvent }[],
  prefix: string,
): Promise<void> {
  const marks = parsed.map((p) => `${prefix}${p.ev.e}`);
  const fresh = new Set(
    rowsOf<{ event_id: string }>(await trx.raw(DRAINED_INSERT, [Date.now(), JSON.stringify(marks)])).map(
      (r) => r.event_id,
    ),
  );
  const d: Deltas = { usage: new Map(), counters: new Map(), inserts: [], deletes: [] };
  for (const [i, p] of parsed.entries()) if (fresh.has(marks[i] as string)) collect(d, p.ev);
  await applyDeltas(trx, d);
}

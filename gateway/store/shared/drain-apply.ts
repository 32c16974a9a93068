/**
 * What a drain pass writes to PostgreSQL (drain.ts): the events of a batch folded into deltas (ledger rows, usage,
 * counters, balances) and applied in the pass's transaction, only the events not recorded before (shared_drained).
 * Row locks are taken in one global order (event ids as given, hourly ledger rows sorted, accounts by id, usage and
 * counter rows sorted).
 */
import type { Knex } from 'knex';
import {
  addCharge,
  applyLedger,
  chunks,
  ledgerDeltas,
  rowsOf,
  type LedgerDeltas,
  type OwnRow,
} from './drain-ledger';

/** One stream entry, fields by name (see the scripts for who writes which). */
export type StoreEvent = Record<string, string> & { t: string; e: string };

interface Deltas {
  usage: Map<string, [number, number, number]>;
  counters: Map<string, number>;
  ledger: LedgerDeltas;
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
    if (charged !== 0 && ev.a) {
      const keyId = ev.k ? ev.k : null;
      // D35: an admission adds its requests to its hour's row (a lease holder's aggregated event, `x` requests, may
      // be negative: refunds of charged admissions released later, D11, or a reclaimed lease's unsettled charges);
      // a release takes it back from its admission's hour (`at`; a release written before D35 has none: the hour of
      // the release).
      if (sign > 0) addCharge(d.ledger, ev.a, keyId, Number(ev.n ?? 0), Number(ev.x ?? 1), charged);
      else
        d.ledger.releases.push({
          accountId: ev.a,
          id: String(ev.id),
          keyId,
          at: Number(ev.at ? ev.at : (ev.n ?? 0)),
          amount: charged,
        });
    }
  } else if (ev.t === 'top' && ev.a) {
    d.ledger.own.push(ledgerRow(String(ev.id), ev.a, charged, 'topup', '', ev.r, ev.n));
  } else if (ev.t === 'pkg' && ev.a) {
    d.ledger.own.push(ledgerRow(String(ev.id), ev.a, -charged, 'package', ev.k, '', ev.n));
  } else if (ev.t === 'adj' && ev.a) {
    // A balance forfeited at account deletion (account-lifecycle.ts), or a refund's adjustment (refunds.ts).
    d.ledger.own.push(ledgerRow(String(ev.id), ev.a, -charged, 'adjustment', '', ev.r, ev.n));
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
): OwnRow {
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

/*
 * Each statement below sends its rows as ONE JSON text parameter, unpacked in PostgreSQL by json_to_recordset: a
 * batch of 500 events is a handful of short statements instead of knex-compiled VALUES lists with thousands of
 * bindings, whose building was most of the drain's CPU on the gateway's event loop. WITH ORDINALITY keeps the rows in
 * the order given (usage and counter rows sorted, so concurrent drains take their row locks in one order and cannot
 * deadlock; the ledger's statements are in drain-ledger.ts).
 */

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
  await applyLedger(trx, d.ledger);
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
  const d: Deltas = { usage: new Map(), counters: new Map(), ledger: ledgerDeltas() };
  for (const [i, p] of parsed.entries()) if (fresh.has(marks[i] as string)) collect(d, p.ev);
  await applyDeltas(trx, d);
}

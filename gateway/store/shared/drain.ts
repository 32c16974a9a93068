/**
 * The ledger drain: copies the shards' event streams (charges, releases, top-ups, packages, usage, refusals) into
 * PostgreSQL, exactly once. Each batch is one PostgreSQL transaction that first records the events' ids in
 * `shared_drained` (a unique key) and applies only the events not recorded before; the stream entries are deleted
 * only after the commit. A crash between commit and delete re-reads the batch and skips it; several instances
 * draining the same shard serialise on the unique key. Money is never lost or counted twice (D16).
 */
import type { Knex } from 'knex';
import { newOrderedId } from '../ids';
import { redisFault, pgFault } from './errors';
import { SHARDS, type Layout } from './layout';
import type { RedisClient } from './redis-client';

const BATCH = 500;
const KEEP_MARKS_MS = 3 * 86_400_000;
const PARALLEL_SHARDS = 4;

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
    const col = ev.b === '1' ? 1 : 0;
    for (const subject of words(ev.u)) {
      const row = d.usage.get(`${ev.d}\t${subject}`) ?? [0, 0, 0];
      row[col] += sign;
      d.usage.set(`${ev.d}\t${subject}`, row);
    }
    for (const counter of words(ev.f)) add(d.counters, `${ev.d}\t${counter}`, sign);
    if (charged > 0 && ev.a) {
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

/**
 * Ledger rows in, released charges out. `accounts.balance` follows exactly the rows inserted and deleted here, so it
 * always equals the ledger sum.
 */
async function applyLedger(trx: Knex.Transaction, d: Deltas): Promise<void> {
  const balances = new Map<string, number>();
  const add = (acc: unknown, n: unknown) =>
    balances.set(String(acc), (balances.get(String(acc)) ?? 0) + Number(n));
  for (const rows of chunks(d.inserts)) {
    const ins = await trx('ledger').insert(rows).onConflict().ignore().returning(['account_id', 'amount']);
    for (const r of ins as { account_id: string; amount: string }[]) add(r.account_id, r.amount);
  }
  for (const dels of chunks(d.deletes)) {
    const gone = await trx('ledger')
      .where({ kind: 'charge' })
      .whereIn(
        ['account_id', 'ref'],
        dels.map((x) => [x.accountId, x.ref]),
      )
      .delete()
      .returning(['account_id', 'amount']);
    for (const r of gone as { account_id: string; amount: string }[]) add(r.account_id, -Number(r.amount));
  }
  for (const [acc, n] of [...balances.entries()].sort()) {
    if (n !== 0) await trx('accounts').where({ id: acc }).increment('balance', n);
  }
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
  for (const part of chunks(rows)) {
    await trx('usage_daily')
      .insert(part)
      .onConflict(['day', 'subject'])
      .merge({
        free: trx.raw('GREATEST(usage_daily.free + excluded.free, 0)'),
        billed: trx.raw('GREATEST(usage_daily.billed + excluded.billed, 0)'),
        refused: trx.raw('usage_daily.refused + excluded.refused'),
      });
  }
  const emptied = rows.filter((r) => r.free < 0 || r.billed < 0).map((r) => [r.day, r.subject]);
  for (const part of chunks(emptied)) {
    await trx('usage_daily')
      .whereIn(['day', 'subject'], part)
      .andWhere({ free: 0, billed: 0, refused: 0 })
      .delete();
  }
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
  for (const part of chunks(rows)) {
    await trx('counters_daily')
      .insert(part)
      .onConflict(['day', 'counter_id'])
      .merge({ used: trx.raw('GREATEST(counters_daily.used + excluded.used, 0)') });
  }
}

/** Write a batch's deltas (rows in a fixed order, so concurrent drains cannot deadlock). */
async function applyDeltas(trx: Knex.Transaction, d: Deltas): Promise<void> {
  await applyLedger(trx, d);
  await applyUsage(trx, d);
  await applyCounters(trx, d);
}

/** Parse XRANGE output into events. */
function parseEntries(entries: [string, string[]][]): { id: string; ev: StoreEvent }[] {
  return entries.map(([id, fields]) => {
    const ev: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) ev[fields[i] ?? ''] = fields[i + 1] ?? '';
    return { id, ev: ev as StoreEvent };
  });
}

/** Drains every shard's stream into PostgreSQL; one pass at a time per instance. */
export class Drain {
  private chain: Promise<unknown> = Promise.resolve();
  private queued = false;
  private lastPrune = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly knex: Knex,
    private readonly layout: Layout,
  ) {}

  /** Drain everything written before this call (waits for a pass in progress, then runs a new one). */
  flush(): Promise<number> {
    return this.queue(false);
  }

  private queue(background: boolean): Promise<number> {
    const run = this.chain.then(() => this.pass(background));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Background tick: start a pass unless one is already waiting. Errors are returned, not thrown. */
  async tick(): Promise<unknown> {
    if (this.queued) return null;
    this.queued = true;
    try {
      await this.queue(true);
      return null;
    } catch (err) {
      return err;
    } finally {
      this.queued = false;
    }
  }

  /**
   * One pass over every shard. In the background, a shard another instance is draining right now is skipped (a
   * 200 ms lock: fewer duplicate transactions; correctness does not depend on it). A flush before a read drains
   * regardless, so a reader sees every event written before its call.
   */
  private async pass(background: boolean): Promise<number> {
    let total = 0;
    let next = 0;
    // A few shards at a time: their transactions touch accounts and usage rows in sorted order (no deadlock).
    const worker = async () => {
      while (next < SHARDS) {
        const shard = next++;
        for (let batch = 0; ; batch++) {
          const n = await this.drainShard(shard, background && batch === 0);
          total += n;
          if (n < BATCH) break;
        }
      }
    };
    const settled = await Promise.allSettled(Array.from({ length: PARALLEL_SHARDS }, worker));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (Date.now() - this.lastPrune > 3_600_000) {
      this.lastPrune = Date.now();
      await this.knex('shared_drained')
        .where('drained_at', '<', Date.now() - KEEP_MARKS_MS)
        .delete()
        .catch(() => 0);
    }
    return total;
  }

  /** Take the shard's short drain lock (false when another instance holds it). */
  private async lock(shard: number): Promise<boolean> {
    try {
      return (await this.redis.set(this.layout.drainLock(shard), '1', 'PX', 200, 'NX')) === 'OK';
    } catch (err) {
      throw redisFault(err);
    }
  }

  /** Drain one batch of one shard; returns the number of stream entries handled (0 when the lock was taken). */
  async drainShard(shard: number, takeLock = false): Promise<number> {
    const stream = this.layout.stream(shard);
    let entries: [string, string[]][];
    try {
      entries = (await this.redis.xrange(stream, '-', '+', 'COUNT', BATCH)) as [string, string[]][];
    } catch (err) {
      throw redisFault(err);
    }
    if (entries.length === 0) return 0;
    if (takeLock && !(await this.lock(shard))) return 0;
    const parsed = parseEntries(entries);
    try {
      await this.knex.transaction(async (trx) => {
        const marks = parsed.map((p) => ({
          event_id: `${this.layout.prefix}${p.ev.e}`,
          drained_at: Date.now(),
        }));
        const fresh = new Set(
          (
            await trx('shared_drained').insert(marks).onConflict('event_id').ignore().returning('event_id')
          ).map((r: { event_id: string }) => r.event_id),
        );
        const d: Deltas = { usage: new Map(), counters: new Map(), inserts: [], deletes: [] };
        for (const p of parsed) if (fresh.has(`${this.layout.prefix}${p.ev.e}`)) collect(d, p.ev);
        await applyDeltas(trx, d);
      });
    } catch (err) {
      throw pgFault(err);
    }
    try {
      await this.redis.xdel(stream, ...entries.map((e) => e[0]));
    } catch (err) {
      throw redisFault(err);
    }
    return entries.length;
  }
}

/**
 * `geogate reconcile` for the shared store: after draining every event stream, compare each Redis wallet with its
 * account's ledger sum (and the accounts.balance column), and each Redis daily counter with counters_daily (written
 * by the drain from the same events). Expected result: no drift. A drift seen once is re-checked after another drain
 * (requests admitted meanwhile move both sides) and reported only when it persists.
 */
import { Cluster } from 'ioredis';
import type { SharedStore } from './store';

/** One disagreement between Redis and PostgreSQL. */
export interface Drift {
  kind: 'balance' | 'balance-column' | 'counter';
  /** account id, or "day counter-id". */
  subject: string;
  redis: number;
  postgres: number;
}

export interface ReconcileReport {
  drifts: Drift[];
  wallets: number;
  counters: number;
  /** Stream entries still waiting for the drain after the final pass. */
  pending: number;
}

/** All keys matching `pattern` (every master of a cluster). */
async function scanAll(store: SharedStore, pattern: string): Promise<string[]> {
  const nodes = store.redis instanceof Cluster ? store.redis.nodes('master') : [store.redis];
  const out: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      out.push(...keys);
    } while (cursor !== '0');
  }
  return out;
}

async function walletDrifts(store: SharedStore, keys: string[]): Promise<Drift[]> {
  const drifts: Drift[] = [];
  for (const k of keys) {
    const accountId = k.slice(k.lastIndexOf(':w:') + 3);
    const b = Number(await store.redis.hget(k, 'b'));
    const row = await store.knex('ledger').where({ account_id: accountId }).sum({ s: 'amount' }).first();
    const sum = Number(row?.s ?? 0);
    if (b !== sum) drifts.push({ kind: 'balance', subject: accountId, redis: b, postgres: sum });
  }
  return drifts;
}

async function counterDrifts(store: SharedStore, keys: string[]): Promise<Drift[]> {
  const drifts: Drift[] = [];
  for (const k of keys) {
    const rest = k.slice(k.indexOf('}:c:') + 4);
    const day = rest.slice(-10);
    const id = rest.slice(0, -11);
    const v = Number((await store.redis.get(k)) ?? 0);
    const row = await store.knex('counters_daily').where({ day, counter_id: id }).first('used');
    const used = Number(row?.used ?? 0);
    if (v !== used) drifts.push({ kind: 'counter', subject: `${day} ${id}`, redis: v, postgres: used });
  }
  return drifts;
}

/** PostgreSQL's own consistency: accounts.balance equals the ledger sum. */
async function columnDrifts(store: SharedStore): Promise<Drift[]> {
  const rows = await store.knex.raw(
    `SELECT a.id, a.balance, COALESCE(SUM(l.amount), 0) AS s FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id
     GROUP BY a.id, a.balance HAVING a.balance <> COALESCE(SUM(l.amount), 0)`,
  );
  return (rows.rows as { id: string; balance: string; s: string }[]).map((r) => ({
    kind: 'balance-column' as const,
    subject: r.id,
    redis: Number(r.balance),
    postgres: Number(r.s),
  }));
}

async function pendingEntries(store: SharedStore): Promise<number> {
  let n = 0;
  for (const k of await scanAll(store, `${store.layout.prefix}{*}:events`)) n += await store.redis.xlen(k);
  return n;
}

/** Drain, compare, re-check drifts once; returns what still disagrees. */
export async function reconcile(store: SharedStore): Promise<ReconcileReport> {
  const p = store.layout.prefix;
  await store.drain.flush();
  const wallets = await scanAll(store, `${p}{*}:w:*`);
  const counters = await scanAll(store, `${p}{*}:c:*`);
  let drifts = [
    ...(await walletDrifts(store, wallets)),
    ...(await counterDrifts(store, counters)),
    ...(await columnDrifts(store)),
  ];
  if (drifts.length > 0) {
    await store.drain.flush();
    const first = new Set(drifts.map((d) => `${d.kind} ${d.subject}`));
    const again = [
      ...(await walletDrifts(store, wallets)),
      ...(await counterDrifts(store, counters)),
      ...(await columnDrifts(store)),
    ];
    drifts = again.filter((d) => first.has(`${d.kind} ${d.subject}`));
  }
  return { drifts, wallets: wallets.length, counters: counters.length, pending: await pendingEntries(store) };
}

/** The report as lines for the command line. */
export function formatDrift(r: ReconcileReport): string {
  const head = `checked ${r.wallets} balances and ${r.counters} counters; ${r.pending} events pending`;
  if (r.drifts.length === 0) return `${head}\nno drift`;
  const lines = r.drifts.map((d) => `drift ${d.kind} ${d.subject}: redis ${d.redis} postgres ${d.postgres}`);
  return [head, ...lines].join('\n');
}

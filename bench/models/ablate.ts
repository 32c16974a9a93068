/**
 * Ablations for `npm run bench:gateway` (issue 12: `BENCH_ABLATE`). Preloaded into a gateway process with
 * `node --require dist/bench/ablate.js`; `GG_ABLATE` names the stages to replace, joined by "+":
 * - `admit`: the plan + admit stage answers "admitted" without planning or calling the store (no ticket, so settle
 *   keeps and releases nothing; no quota headers);
 * - `render`: the record stage hands the backend's bytes on as the answer (no connector read, no JSON parse, no
 *   adapter rendering);
 * - `metrics`: the request, admission and backend-latency observations do nothing;
 * - `journal`: a model of the cheapest admission that would still survive kill -9, for planning (docs/benchmarks.md,
 *   ninth session): the rule set plans as usual, the decision is taken in memory (the day's free counters and the
 *   account's balance in Maps; slots are not modelled), and each admitted request appends one line to a journal file
 *   that is written once per event-loop turn (one `writeSync` for the turn's lines) before any of that turn's
 *   admissions returns, as the group commit does. No ticket, so settle keeps and releases nothing;
 * - `fold` (with `journal`, embedded store only): the turn's admissions are then also written behind the answers into
 *   the store's own SQLite file, on the store's own connection, one transaction per turn (or per window, below), by
 *   bench/models/write-behind.ts: what a write-behind store would still do on the gateway's thread.
 *   `fold<ms>` (e.g. `journal+fold5`) folds every that many ms instead of every turn (the answers still wait only
 *   for the turn's journal write). `+thread` (e.g. `journal+fold5+thread`): the fold runs in a writer thread with its
 *   own connection, so only posting the batch stays on the gateway's thread.
 * It replaces the compiled modules' exported functions (the pipeline calls them through their module objects), so the
 * build under test is otherwise unchanged. For measurement only: an ablated gateway neither counts nor checks.
 */
import type { AdapterResponse } from '../../adapters/types';
import type { RequestContext } from '../../gateway/http/context';
import type { BackendOutcome } from '../../gateway/http/backend';
import type { ReadAnswer } from '../../gateway/http/stages/record';
import type Database from 'better-sqlite3';
import { closeSync, openSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMainThread, Worker } from 'node:worker_threads';
import * as admit from '../../gateway/http/stages/admit';
import * as open from '../../gateway/store/embedded/open';
import { planAdmission } from '../../gateway/policy/planner';
import { newOrderedId } from '../../gateway/store/ids';
import type { AdmissionPlan } from '../../gateway/store/types';
import { writeBehind, type Admitted, type Fold } from './write-behind';
import * as record from '../../gateway/http/stages/record';
import { GatewayMetrics } from '../../gateway/metrics/gateway-metrics';

const PARTS = new Set(['admit', 'render', 'metrics', 'journal', 'fold', 'thread']);

/** The parts named by `spec` ("admit+render"); throws on an unknown one. */
export function ablatedParts(spec: string): Set<string> {
  const parts = new Set(spec.split('+').filter((p) => p !== ''));
  for (const p of parts)
    if (!PARTS.has(p) && !/^fold[1-9]\d{0,3}$/.test(p))
      throw new Error(`GG_ABLATE: unknown part "${p}" (known: ${[...PARTS].join(', ')})`);
  return parts;
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

/** Replace the named parts in this process. */
export function ablate(parts: Set<string>): void {
  // Why the casts: the compiled CommonJS modules' exports are plain writable properties; the TypeScript view of an
  // imported namespace is read-only.
  const writable = (m: object) => m as Record<string, unknown>;
  if (parts.has('admit')) {
    writable(admit)['admitRequest'] = async (ctx: RequestContext) => {
      ctx.ticket = null;
      return null;
    };
  }
  // `fold` writes once per turn; `fold<ms>` (fold5) every that many milliseconds.
  const fold = [...parts].find((p) => p.startsWith('fold'));
  if (fold !== undefined && !parts.has('journal')) throw new Error('GG_ABLATE: fold goes with journal');
  if (parts.has('thread') && fold === undefined) throw new Error('GG_ABLATE: thread goes with fold');
  if (parts.has('journal')) {
    const foldMs = fold === undefined ? 0 : Number(fold.slice(4));
    const into =
      fold === undefined ? null : parts.has('thread') ? writerThread(storeDb()) : localWriter(storeDb());
    writable(admit)['admitRequest'] = journalAdmission(into, foldMs);
  }
  if (parts.has('render')) {
    writable(record)['readAnswer'] = (_ctx: RequestContext, outcome: BackendOutcome): ReadAnswer => {
      if (outcome.kind !== 'answer') return { kind: outcome.kind, record: null };
      // The body goes out as the Buffer it came in (send() accepts it: byteLength and end take either).
      const answer = { status: outcome.status, headers: JSON_HEADERS, body: outcome.body };
      return {
        kind: outcome.status === 200 ? 'record' : 'failed',
        record: answer as unknown as AdapterResponse,
      };
    };
  }
  if (parts.has('metrics')) {
    const proto = GatewayMetrics.prototype as unknown as Record<string, unknown>;
    for (const m of ['request', 'admission', 'backendAnswered']) proto[m] = () => {};
  }
}

const spec = process.env['GG_ABLATE'];
// The main thread only: --require also runs in the store's worker threads (the checkpointer), which admit nothing.
if (spec !== undefined && spec !== '' && isMainThread) ablate(ablatedParts(spec));

/** The `journal` part's admitRequest (see the header): in-memory decision, one journal write per turn. */
function journalAdmission(
  /** The `fold` part's writer (made at the first fold), or null without it. */
  foldInto: (() => Fold) | null,
  /** Fold every this many ms; 0: once per event-loop turn. */
  foldMs: number,
): (ctx: RequestContext) => Promise<null> {
  const file = path.join(tmpdir(), `gg-ablate-journal-${process.pid}`);
  const fd = openSync(file, 'a');
  // GG_ABLATE_STATS=FILE: at exit, FILE.<pid> gets the turns, admissions, refusals, folds and the folds' time (JSON).
  const stats = { flushes: 0, admitted: 0, refused: 0, folds: 0, foldNs: 0 };
  process.on('exit', () => {
    closeSync(fd);
    unlinkSync(file);
    const out = process.env['GG_ABLATE_STATS'];
    if (out !== undefined) writeFileSync(`${out}.${process.pid}`, JSON.stringify(stats));
  });
  const counters = new Map<string, number>();
  const balances = new Map<string, number>();
  /** This turn's admissions and their waiting requests; the journaled ones not yet folded. */
  let turn: Admitted[] = [];
  let waiting: (() => void)[] = [];
  let pending: Admitted[] = [];
  let behind: Fold | null = null;
  const fold = (make: () => Fold): void => {
    const t0 = process.hrtime.bigint();
    (behind ??= make())(pending);
    pending = [];
    stats.folds += 1;
    stats.foldNs += Number(process.hrtime.bigint() - t0);
  };
  const flush = (): void => {
    writeSync(
      fd,
      turn.map(({ plan, charge }) => `${plan.id} ${plan.keyId ?? '-'} ${charge} ${plan.now}\n`).join(''),
    );
    const ready = waiting;
    const batch = turn;
    turn = [];
    waiting = [];
    for (const resolve of ready) resolve();
    stats.flushes += 1;
    stats.admitted += batch.length;
    if (foldInto === null) return;
    const idle = pending.length === 0; // else a fold is already scheduled and takes these too
    for (const a of batch) pending.push(a);
    if (!idle) return;
    // Outside any request, so a failure here ends the process instead of passing as a store fault (served open).
    if (foldMs > 0) setTimeout(fold, foldMs, foldInto);
    else setImmediate(fold, foldInto);
  };
  /** The charge (0 when free), or null when refused. */
  const decide = (plan: AdmissionPlan): number | null => {
    const free = plan.free.every((c) => (counters.get(`${plan.day}:${c.id}`) ?? 0) < c.limit);
    if (free) {
      for (const c of plan.free) {
        const id = `${plan.day}:${c.id}`;
        counters.set(id, (counters.get(id) ?? 0) + 1);
      }
      return 0;
    }
    if (plan.overflow.kind !== 'bill') return null;
    const { accountId, price } = plan.overflow;
    const balance = balances.get(accountId) ?? Number.MAX_SAFE_INTEGER;
    if (balance < price) return null;
    balances.set(accountId, balance - price);
    return price;
  };
  return async (ctx) => {
    const { config, clock } = ctx.deps;
    const now = clock.now();
    const plan = planAdmission({
      rules: config.rules,
      identity: ctx.identity,
      address: ctx.address,
      now,
      id: newOrderedId('adm'),
    });
    ctx.ticket = null;
    const charge = decide(plan);
    if (charge === null) {
      // The bench's plans are never refused (huge allowance or balance); a refusal is counted, not rendered.
      stats.refused += 1;
      return null;
    }
    if (turn.length === 0) setImmediate(flush);
    turn.push({ plan, charge });
    await new Promise<void>((resolve) => waiting.push(resolve));
    return null;
  };
}

/**
 * The embedded store's own connection: the first database this process opens through the store's openDatabase
 * (gateway/store/embedded/store.ts opens it at start; in this model it is idle but for key reads).
 */
function storeDb(): () => Database.Database {
  let first: Database.Database | null = null;
  const real = open.openDatabase;
  (open as unknown as Record<string, unknown>)['openDatabase'] = (file: string) => {
    const db = real(file);
    first ??= db;
    return db;
  };
  return () => {
    if (first === null) throw new Error('GG_ABLATE: fold needs the embedded store');
    return first;
  };
}

/** `fold`: the batch written on the gateway's thread, on the store's own connection. */
function localWriter(db: () => Database.Database): () => Fold {
  return () => writeBehind(db());
}

/**
 * `fold+thread`: the batch posted to a writer thread (bench/models/writer-thread.ts) with its own connection to the store's
 * file; the gateway's thread pays the post (a structured clone of the batch), the writer the SQL.
 */
function writerThread(db: () => Database.Database): () => Fold {
  return () => {
    const worker = new Worker(path.join(__dirname, 'ablate-writer.js'), { workerData: { file: db().name } });
    worker.unref();
    // A failed writer ends the process: the model must not pass a failure as a served request.
    worker.on('error', (err) => {
      throw err;
    });
    return (batch) => worker.postMessage(batch);
  };
}

/**
 * The `journal` model of `BENCH_ABLATE` (models/ablate.ts): the cheapest admission that would still survive kill -9,
 * for planning. A wrapper of the admission store: the rule set plans as usual (the pipeline's own stage), the decision
 * is taken in memory (the day's free counters and the account's balance in Maps; slots are not modelled), and each
 * admitted request appends one line to a journal file written once per event-loop turn (one `writeSync` for the
 * turn's lines) before any of that turn's admissions returns, as a group commit does. Keep and release of its tickets
 * do nothing. With a fold (models/write-behind.ts) the turn's admissions are then written behind the answers.
 * For measurement only: the store itself is never asked to admit.
 */
import { closeSync, openSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AdmissionStore } from '../../gateway/store/ports';
import type { AdmissionPlan, AdmissionResult } from '../../gateway/store';
import { override } from './override';
import type { Admitted, Fold } from './write-behind';

/** The journal model as an admission store wrapper. */
export function journalAdmission(
  /** The fold's writer (made at the first fold), or null without a fold. */
  foldInto: (() => Fold) | null,
  /** Fold every this many ms; 0: once per event-loop turn. */
  foldMs: number,
): (store: AdmissionStore) => AdmissionStore {
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
  const admit = async (plan: AdmissionPlan): Promise<AdmissionResult> => {
    const charge = decide(plan);
    if (charge === null) {
      // The bench's plans are never refused (huge allowance or balance); a refusal is counted, served uncharged.
      stats.refused += 1;
      return {
        admitted: true,
        billed: false,
        charged: 0,
        quota: null,
        ticket: { planId: plan.id, undo: null },
      };
    }
    if (turn.length === 0) setImmediate(flush);
    turn.push({ plan, charge });
    await new Promise<void>((resolve) => waiting.push(resolve));
    return {
      admitted: true,
      billed: charge > 0,
      charged: charge,
      quota: null,
      ticket: { planId: plan.id, undo: null },
    };
  };
  const nothing = (): Promise<void> => Promise.resolve();
  return (store) => override(store, { admit, keep: nothing, release: nothing });
}

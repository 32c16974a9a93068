/**
 * The parts `BENCH_ABLATE` switches off or models (`npm run bench:gateway`), each through the composition root
 * (runtime/main.ts `Compose`): an admission store wrapper, a stage replacement or other metrics; no module is patched.
 * A spec joins parts with "+" (e.g. `admit+render`):
 * - `admit`: the admission store answers "admitted" at once, without a store call (the rule set still plans; the
 *   ticket's keep and release do nothing; no quota);
 * - `render`: the read stage hands the backend's bytes on as the answer (no connector read, no JSON parse, no adapter
 *   rendering);
 * - `metrics`: the request, admission and backend-latency observations do nothing;
 * - `journal`: the admission decided in memory and journaled once per turn (models/journal.ts);
 * - `fold` (with `journal`, embedded store only): the turn's admissions also written behind the answers into the
 *   store's file on the store's own connection, one transaction per turn (models/write-behind.ts); `fold<ms>` (e.g.
 *   `journal+fold5`) every that many ms instead; `+thread` (e.g. `journal+fold5+thread`): in a writer thread with its
 *   own connection (models/writer-thread.ts), so only posting the batch stays on the gateway's thread.
 * For measurement only: an ablated gateway neither counts nor checks what it switched off.
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AdapterResponse } from '../../adapters/types';
import type { BackendOutcome } from '../../gateway/http/backend';
import type { AdmissionStore } from '../../gateway/store/ports';
import type { Stages } from '../../gateway/http/pipeline';
import { GatewayMetrics } from '../../gateway/metrics/gateway-metrics';
import { EmbeddedStore, type AdmissionResult, type Store } from '../../gateway/store';
import type { Compose } from '../../runtime/main';
import { journalAdmission } from './journal';
import { override } from './override';
import { writeBehind, type Fold } from './write-behind';

const PARTS = new Set(['admit', 'render', 'metrics', 'journal', 'fold', 'thread']);

/** The parts named by `spec` ("admit+render"); throws on an unknown part or combination. */
export function ablatedParts(spec: string): Set<string> {
  const parts = new Set(spec.split('+').filter((p) => p !== ''));
  for (const p of parts)
    if (!PARTS.has(p) && !/^fold[1-9]\d{0,3}$/.test(p))
      throw new Error(`BENCH_ABLATE: unknown part "${p}" (known: ${[...PARTS].join(', ')})`);
  const fold = [...parts].some((p) => p.startsWith('fold'));
  if (fold && !parts.has('journal')) throw new Error('BENCH_ABLATE: fold goes with journal');
  if (parts.has('thread') && !fold) throw new Error('BENCH_ABLATE: thread goes with fold');
  if (parts.has('admit') && parts.has('journal')) throw new Error('BENCH_ABLATE: admit or journal, not both');
  return parts;
}

const ADMITTED: AdmissionResult = {
  admitted: true,
  billed: false,
  charged: 0,
  quota: null,
  ticket: { planId: 'ablated', undo: null },
};
const nothing = (): Promise<void> => Promise.resolve();

/** `admit`: every admission answered "admitted" without a store call. */
function admitAtOnce(store: AdmissionStore): AdmissionStore {
  return override(store, { admit: () => Promise.resolve(ADMITTED), keep: nothing, release: nothing });
}

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8' });

/** `render`: the backend's bytes are the answer. */
const rawAnswer: Stages['read'] = (_ctx, outcome: BackendOutcome) => {
  if (outcome.kind !== 'answer') return { kind: outcome.kind, record: null };
  // The body goes out as the Buffer it came in (send() accepts it: byteLength and end take either).
  const answer = { status: outcome.status, headers: JSON_HEADERS, body: outcome.body };
  return { kind: outcome.status === 200 ? 'record' : 'failed', record: answer as unknown as AdapterResponse };
};

/** `metrics`: the per-request observations do nothing (the registry and /metrics stay). */
class SilentMetrics extends GatewayMetrics {
  override request(): void {}
  override admission(): void {}
  override backendAnswered(): void {}
}

/** The embedded store's own SQLite connection (the `fold` parts write into its file). */
function embeddedDb(store: Store): EmbeddedStore['db'] {
  if (!(store instanceof EmbeddedStore)) throw new Error('BENCH_ABLATE: fold needs the embedded store');
  return store.db;
}

/** The writer of a fold: on the gateway's thread, or posted to a writer thread with its own connection. */
function folder(parts: Set<string>, store: Store): (() => Fold) | null {
  if (![...parts].some((p) => p.startsWith('fold'))) return null;
  const db = embeddedDb(store);
  if (!parts.has('thread')) return () => writeBehind(db);
  return () => {
    const worker = new Worker(path.join(__dirname, 'writer-thread.js'), { workerData: { file: db.name } });
    worker.unref();
    // A failed writer ends the process: the model must not pass a failure as a served request.
    worker.on('error', (err) => {
      throw err;
    });
    return (batch) => worker.postMessage(batch);
  };
}

/** The composition of `parts`: what the composition root adds to the gateway it builds. */
export function ablation(parts: Set<string>): Compose {
  return ({ config, store }) => {
    const fold = [...parts].find((p) => p.startsWith('fold'));
    const foldMs = fold === undefined ? 0 : Number(fold.slice(4));
    const admission = parts.has('journal')
      ? journalAdmission(folder(parts, store), foldMs)
      : parts.has('admit')
        ? admitAtOnce
        : undefined;
    return {
      ...(admission ? { admission } : {}),
      ...(parts.has('render') ? { stages: { read: rawAnswer } } : {}),
      ...(parts.has('metrics') ? { metrics: new SilentMetrics(config.hosts) } : {}),
    };
  };
}

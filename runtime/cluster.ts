/**
 * `workers: N` (issue 12): N gateway processes serving the same ports (node:cluster). The primary serves nothing:
 * it brings the store's schema up to date once, forks the workers one after the other (each listening before the
 * next starts, so their start-ups never race on the migrations' lock), replaces a worker that dies, and on
 * SIGTERM/SIGINT tells every worker to drain (runtime/drain.ts) and exits when all have. Counters and money stay
 * exact because every admission is one atomic step in the store, whichever process runs it (docs/decisions.md,
 * "Several gateway processes").
 */
import cluster, { type Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { GatewayMetrics } from '../gateway/metrics/gateway-metrics';
import { signalExitCode } from './drain';

/** The message the primary sends a worker to start its drain. */
const DRAIN = 'geogate:drain';
/** A worker that dies is replaced; more than this many deaths within a minute stop the gateway. */
const MAX_RESTARTS_PER_MINUTE = 10;

/** A worker asks the primary for the whole group's metrics; the primary answers with the exposition text. */
const METRICS_ASK = 'geogate:metrics?';
const METRICS_ANSWER = 'geogate:metrics';
/** A worker gives up on the primary's answer after this long (prom-client's own collection waits 5 s). */
const METRICS_WAIT_MS = 6_000;

interface MetricsAsk {
  type: typeof METRICS_ASK;
  id: number;
}
interface MetricsAnswer {
  type: typeof METRICS_ANSWER;
  id: number;
  body?: string;
  error?: string;
}

const isMessage = <T extends { type: string }>(m: unknown, type: T['type']): m is T =>
  typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type;

/** Whether this process is a cluster worker. */
export function isWorker(): boolean {
  return cluster.isWorker;
}

/**
 * The signals a worker drains on: only the primary's drain message. The worker's own SIGTERM/SIGINT are ignored,
 * because a Ctrl-C or `timeout` signals the whole process group: the primary decides (one drain, or on a second
 * signal SIGKILL for every worker).
 */
export function workerSignals(): EventEmitter {
  const emitter = new EventEmitter();
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.on(s, () => undefined);
  let started = false;
  process.on('message', (m: unknown) => {
    if (m !== DRAIN || started) return;
    started = true;
    emitter.emit('SIGTERM', 'SIGTERM');
  });
  return emitter;
}

/** What the primary needs. */
export interface PrimaryOptions {
  workers: number;
  logger: Logger;
  /** Drain bound of one worker (delay + timeout); the primary kills workers still alive after it plus 5 s. */
  drainBoundMs: number;
  exit?: (code: number) => void;
}

/**
 * Fork one worker and resolve once it listens (or reject when it exits first). `slot` (1..N) names the worker's
 * lease journal (GEOGATE_WORKER_SLOT): a replacement takes the dead worker's slot and replays its journal.
 */
function fork(slot: number): Promise<Worker> {
  const worker = cluster.fork({ GEOGATE_WORKER_SLOT: String(slot) });
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) =>
      reject(new Error(`worker ${worker.process.pid} exited ${code} on start`));
    worker.once('exit', onExit);
    worker.once('listening', () => {
      worker.off('exit', onExit);
      resolve(worker);
    });
  });
}

/** Run the primary: fork the workers, keep them running, drain them on a signal. Resolves once all listen. */
export async function runPrimary(o: PrimaryOptions): Promise<void> {
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const alive = new Set<Worker>();
  const deaths: number[] = [];
  let draining = false;
  let failed = false;

  const watch = (w: Worker, slot: number): void => {
    alive.add(w);
    w.once('exit', (code, signal) => {
      alive.delete(w);
      if (draining) {
        if (code !== 0) failed = true;
        if (alive.size === 0) exit(failed ? 1 : 0);
        return;
      }
      o.logger.error({ pid: w.process.pid, code, signal }, 'gateway worker died: starting another');
      const now = Date.now();
      deaths.push(now);
      while ((deaths[0] ?? now) < now - 60_000) deaths.shift();
      if (deaths.length > MAX_RESTARTS_PER_MINUTE) {
        o.logger.fatal('gateway workers keep dying: stopping');
        for (const other of alive) other.process.kill('SIGKILL');
        exit(1);
        return;
      }
      fork(slot).then(
        (next) => {
          watch(next, slot);
          if (draining) next.send(DRAIN);
        },
        (err: unknown) => o.logger.error({ err }, 'gateway worker did not start'),
      );
    });
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (draining) {
      // A second signal: the workers and the primary exit at once.
      for (const w of alive) w.process.kill('SIGKILL');
      exit(signalExitCode(signal));
      return;
    }
    draining = true;
    if (alive.size === 0) return exit(0);
    for (const w of alive) w.send(DRAIN);
    setTimeout(() => {
      o.logger.error('shutdown: workers outlasted the drain bound: killing them');
      for (const w of alive) w.process.kill('SIGKILL');
      exit(1);
    }, o.drainBoundMs + 5_000).unref();
  };
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.on(s, onSignal);
  // Installed before the first fork: a signal during start-up drains the workers started so far.
  for (let i = 0; i < o.workers && !draining; i++) {
    const w = await fork(i + 1);
    watch(w, i + 1);
    if (draining) w.send(DRAIN);
  }
}

/**
 * Primary, `workers: N`: answer a worker's scrape with the metrics of every worker, summed by prom-client's
 * AggregatorRegistry (counters and histograms add up; build_info and process gauges take their own aggregators).
 */
export function servePrimaryMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, m: unknown) => {
    if (!isMessage<MetricsAsk>(m, METRICS_ASK)) return;
    const reply = (answer: Omit<MetricsAnswer, 'type' | 'id'>): void => {
      if (worker.isConnected()) worker.send({ type: METRICS_ANSWER, id: m.id, ...answer });
    };
    aggregator.clusterMetrics().then(
      (body) => reply({ body }),
      (err: unknown) => reply({ error: (err as Error).message }),
    );
  });
}

/**
 * Worker, `workers: N`: hand this worker's registry to the primary's collection, and make a scrape of this worker's
 * /metrics answer the whole group's view (asked from the primary), so any worker the kernel picks answers alike.
 */
export function shareWorkerMetrics(metrics: GatewayMetrics): void {
  AggregatorRegistry.setRegistries([metrics.registry]);
  new AggregatorRegistry(); // installs the worker's reply to the primary's collection
  const pending = new Map<number, (answer: MetricsAnswer) => void>();
  let next = 0;
  process.on('message', (m: unknown) => {
    if (isMessage<MetricsAnswer>(m, METRICS_ANSWER)) pending.get(m.id)?.(m);
  });
  metrics.collectWith(
    () =>
      new Promise<string>((resolve, reject) => {
        const id = next++;
        const timer = setTimeout(
          () => settle({ type: METRICS_ANSWER, id, error: 'no answer' }),
          METRICS_WAIT_MS,
        );
        function settle(a: MetricsAnswer): void {
          pending.delete(id);
          clearTimeout(timer);
          if (a.body !== undefined) resolve(a.body);
          else reject(new Error(`the worker group's metrics: ${a.error ?? 'no answer'}`));
        }
        pending.set(id, settle);
        process.send?.({ type: METRICS_ASK, id } satisfies MetricsAsk);
      }),
  );
}

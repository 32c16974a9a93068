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
import { signalExitCode } from './drain';

/** The message the primary sends a worker to start its drain. */
const DRAIN = 'geogate:drain';
/** A worker that dies is replaced; more than this many deaths within a minute stop the gateway. */
const MAX_RESTARTS_PER_MINUTE = 10;

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

/** Fork one worker and resolve once it listens (or reject when it exits first). */
function fork(): Promise<Worker> {
  const worker = cluster.fork();
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

  const watch = (w: Worker): void => {
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
      fork().then(
        (next) => {
          watch(next);
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
    const w = await fork();
    watch(w);
    if (draining) w.send(DRAIN);
  }
}

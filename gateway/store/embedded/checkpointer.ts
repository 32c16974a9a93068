/**
 * WAL checkpoints off the event loop (issue 12). SQLite's automatic checkpoint runs inside the COMMIT of whichever
 * transaction pushes the WAL past 1,000 pages: that request then copies ~4 MB and fsyncs the database file on the
 * event loop, which every request in flight waits for. The store's own connection turns the automatic checkpoint
 * off; a worker thread with its own connection checkpoints instead.
 *
 * Its PASSIVE checkpoints never block the writer (SQLite lets one writer and one checkpointer work at once in WAL
 * mode), but under a writer that commits every turn they never catch up: SQLite restarts the WAL from its beginning
 * only when a write transaction finds every frame copied, so the WAL grew without end (1.5 GB in 25 s of
 * bench:gateway, billed), each new frame written past the end of the file, where the kernel first zeroes the page
 * (16 % of the gateway's CPU). So when the WAL holds more than RESTART_FRAMES after a passive pass, the worker runs a
 * RESTART checkpoint: it takes the write lock for the few frames left and the fsyncs, and the next commit starts the
 * WAL again from its beginning, overwriting blocks already in the page cache. The store's group commit meets that
 * lock without blocking (group-commit.ts: it tries again next turn); the store's own connection, which restarts the
 * WAL, trims one left larger (journal_size_limit, open.ts).
 *
 * With `workers`, one checkpointer serves the file: the cluster primary runs it (store/index.ts `checkpointFile`)
 * and the workers' stores run none (`checkpointedElsewhere`).
 */
import { Worker } from 'node:worker_threads';
import { BUSY_TIMEOUT_MS } from './open';

/** The worker's code (plain CommonJS, so it also runs where the store's own files are TypeScript, e.g. in tests). */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
const pause = new Int32Array(new SharedArrayBuffer(4));
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const restart = db.prepare('PRAGMA wal_checkpoint(RESTART)');
const checkpoint = () => {
  try {
    const done = passive.get();
    if (!done || done.log <= workerData.restartFrames) return;
    // SQLite's busy handler sleeps 1, 2, 5, 10 ms and more between tries, and a writer that commits every turn
    // takes the lock back long before: try without it, every restartPollMs, for at most restartBudgetMs. Each
    // busy try copies what it can, as a passive one does.
    db.pragma('busy_timeout = 0');
    try {
      const until = Date.now() + workerData.restartBudgetMs;
      while (restart.get().busy !== 0 && Date.now() < until) Atomics.wait(pause, 0, 0, workerData.restartPollMs);
    } finally {
      db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
    }
  } catch (err) { parentPort.postMessage(String(err && err.message)); }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** How often the worker checkpoints: each passive pass then copies a few ms of frames, and the WAL stays tens of MB. */
const EVERY_MS = 50;

/**
 * WAL frames (pages) above which the worker restarts the WAL (about 16 MB). A restart holds the write lock for a few
 * ms, which the admissions of that moment wait for: at one connection a restart every ~50 ms (1,000 frames) would
 * touch about 1 % of requests, one every few hundred ms well under the p99.
 */
const RESTART_FRAMES = 4_000;

/** How often a restart tries for the write lock, and for how long at most before the next period. */
const RESTART_POLL_MS = 0.2;
const RESTART_BUDGET_MS = 1_000;

/** Runs checkpoints of `path` from a worker thread until stopped (PASSIVE, RESTART past RESTART_FRAMES). */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(path: string, onError: (message: string) => void) {
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: {
        path,
        driver: require.resolve('better-sqlite3'),
        everyMs: EVERY_MS,
        restartFrames: RESTART_FRAMES,
        restartPollMs: RESTART_POLL_MS,
        restartBudgetMs: RESTART_BUDGET_MS,
        busyTimeoutMs: BUSY_TIMEOUT_MS,
      },
    });
    this.worker.on('message', (m: unknown) => onError(String(m)));
    this.worker.on('error', (err) => onError(err.message));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.unref();
  }

  /** Checkpoint once more, close the worker's connection and wait for the thread to end. */
  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await this.exited;
  }
}

/** What a checkpointer reports through (a failed pass is logged, never thrown: the next pass tries again). */
export function checkpointWarning(logger?: {
  warn(o: object, msg?: string): void;
}): (message: string) => void {
  return (message) => logger?.warn({ message }, 'embedded store: background checkpoint failed');
}

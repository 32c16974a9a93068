/**
 * WAL checkpoints off the event loop (issue 12). SQLite's automatic checkpoint runs inside the COMMIT of whichever
 * transaction pushes the WAL past 1,000 pages: that request then copies ~4 MB and fsyncs the database file on the
 * event loop, which every request in flight waits for. The store's own connection turns the automatic checkpoint
 * off; a worker thread with its own connection runs PASSIVE checkpoints instead (they never block the writer: SQLite
 * lets one writer and one checkpointer work at once in WAL mode).
 */
import { Worker } from 'node:worker_threads';

/** The worker's code (plain CommonJS, so it also runs where the store's own files are TypeScript, e.g. in tests). */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (err) { parentPort.postMessage(String(err && err.message)); }
};
const timer = setInterval(checkpoint, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** How often the worker checkpoints: often enough that the WAL stays a few MB at full load. */
const EVERY_MS = 200;

/** Runs PASSIVE checkpoints of `path` from a worker thread until stopped. */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;

  constructor(path: string, onError: (message: string) => void) {
    this.worker = new Worker(WORKER, {
      eval: true,
      workerData: { path, driver: require.resolve('better-sqlite3'), everyMs: EVERY_MS },
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

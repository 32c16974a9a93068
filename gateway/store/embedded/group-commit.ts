/**
 * Group commit: admissions submitted in the same turn of the event loop run in one IMMEDIATE transaction,
 * all-or-nothing per admission (D10), and their promises resolve only after that transaction committed. Under load
 * this shares one commit among many requests; an answered admission is still durable. A batch first runs without
 * savepoints (a refusal writes nothing, so only a throw needs one; issue 12: a savepoint and its release were two
 * statements per admission); when an admission throws, the whole transaction is rolled back and the batch runs again
 * with each admission in its own savepoint, so the throw fails that admission alone.
 * Small writes that may wait for the next commit (keeps: deleting release marks) ride in the same transaction
 * (`defer`), so a request costs one commit, not two. A deferred write alone waits up to `DEFER_MS` for an
 * admission to ride with (issue 12: one request at a time made a commit for its admission and another for its keep,
 * 12.2 fcntl and 8.1 pwrite per request against 6.1 and 6.1 since); an admission never waits on a timer: the flush
 * runs at the end of the current turn (setImmediate), right after the I/O callbacks that queued it.
 *
 * Another connection taking the write lock (other processes on one file, `workers`, issue 12; the background
 * checkpointer's WAL restarts, checkpointer.ts; only when the store says so): the batch's BEGIN runs with
 * `busy_timeout` 0. When another connection holds the write lock, the batch is put back at the head of the queue and
 * tried again (at the end of the turn, then every 1 ms) instead of sleeping in SQLite's busy handler, which blocks
 * the event loop for 1 ms and more per attempt; meanwhile new admissions join the batch. After `BUSY_BUDGET_MS` of
 * retrying, the batch waits in SQLite like any other statement (busy_timeout), so a stuck lock still ends in an
 * error.
 */
import { sqliteFault } from './faults';
import type Database from 'better-sqlite3';

type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

/** How long a batch retries without blocking before it waits in SQLite's busy handler. */
const BUSY_BUDGET_MS = 2_000;
/** How long deferred writes wait for an admission's commit to ride in before they commit alone. */
export const DEFER_MS = 5;

/** SQLITE_BUSY (another connection holds the write lock), as better-sqlite3 reports it. */
function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_BUSY';
}

interface Pending<I, O> {
  input: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/** Writes deferred to the next commit, and the promise they share. */
interface Deferred {
  tasks: (() => void)[];
  resolve(): void;
  reject(error: unknown): void;
  done: Promise<void>;
}

/** Runs `one` for every submitted input, batched per event-loop turn. */
export class GroupCommit<I, O> {
  private pending: Pending<I, O>[] = [];
  private deferred: Deferred | null = null;
  private scheduled = false;
  /** The flush of deferred writes alone, when no admission came within DEFER_MS. */
  private deferTimer: NodeJS.Timeout | null = null;
  /** When the batch at the head first found the file locked (performance.now), or null. */
  private busySince: number | null = null;
  /** Retries of the batch at the head since it last committed. */
  private retries = 0;
  /** Runs as BEGIN IMMEDIATE … COMMIT alone, and as a savepoint inside the batch transaction. */
  private readonly one: Database.Transaction<(input: I) => O>;
  /** A batch of one with nothing deferred: `one` and the batch's last writes in one transaction, no savepoint. */
  private readonly single: Database.Transaction<(input: I) => O>;
  private readonly many: Database.Transaction<(inputs: I[], tasks: (() => void)[]) => Outcome<O>[]>;
  /** The batch without savepoints: any throw rolls the whole transaction back (then `many` runs it). */
  private readonly manyAtOnce: Database.Transaction<(inputs: I[], tasks: (() => void)[]) => O[]>;
  /** Set busy_timeout to 0 and back (only when `busyTimeoutMs` is given). */
  private readonly noWait: Database.Statement | null = null;
  private readonly wait: Database.Statement | null = null;

  constructor(
    private readonly db: Database.Database,
    one: (input: I) => O,
    private readonly afterCommit: () => void = () => {},
    private readonly onError: (error: unknown) => void = () => {},
    /** The connection's busy_timeout when other connections take the write lock (retry without blocking), else null. */
    private readonly busyTimeoutMs: number | null = null,
    /** Writes of the whole batch, run last inside its transaction (usage-fold.ts); a throw fails the batch. */
    beforeCommit: () => void = () => {},
    /** Forget what `one` kept outside the database for a batch rolled back as a whole (usage-fold.ts). */
    private readonly rolledBack: () => void = () => {},
  ) {
    if (busyTimeoutMs !== null) {
      // Prepared once: db.pragma() prepares its statement on every call, and these run around every batch.
      this.noWait = db.prepare('PRAGMA busy_timeout = 0');
      this.wait = db.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    }
    this.one = db.transaction(one);
    this.single = db.transaction((input: I) => {
      const out = one(input);
      beforeCommit();
      return out;
    });
    this.many = db.transaction((inputs: I[], tasks: (() => void)[]) => {
      for (const t of tasks) t();
      const outcomes = inputs.map((input) => this.attempt(() => this.one(input)));
      beforeCommit();
      return outcomes;
    });
    this.manyAtOnce = db.transaction((inputs: I[], tasks: (() => void)[]) => {
      for (const t of tasks) t();
      const values = inputs.map((input) => one(input));
      beforeCommit();
      return values;
    });
  }

  /** Queue `input`; resolves with its result once the batch holding it is committed. */
  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /** Run `task` (a write) in the next batch's transaction; resolves once that transaction committed. */
  defer(task: () => void): Promise<void> {
    let d = this.deferred;
    if (d === null) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const done = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      done.catch(() => undefined); // a caller that does not wait must not see an unhandled rejection
      d = { tasks: [], resolve, reject, done };
      this.deferred = d;
    }
    d.tasks.push(task);
    if (this.deferTimer === null && !this.scheduled) {
      this.deferTimer = setTimeout(() => {
        this.deferTimer = null;
        this.schedule();
      }, DEFER_MS); // ref'd, as the shared store's keeper: a process ending by itself still commits its keeps
    }
    return d.done;
  }

  /** Run what is queued now (before closing the database). */
  drain(): void {
    if (this.pending.length > 0 || this.deferred !== null) this.flush();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.deferTimer !== null) {
      clearTimeout(this.deferTimer);
      this.deferTimer = null;
    }
    const batch = this.pending;
    const deferred = this.deferred;
    if (batch.length === 0 && deferred === null) return; // drained early
    this.pending = [];
    this.deferred = null;
    const tasks = deferred?.tasks ?? [];
    let outcomes: Outcome<O>[];
    const waitInSqlite = this.busySince !== null && performance.now() - this.busySince > BUSY_BUDGET_MS;
    let toggled = false;
    try {
      // Inside the try: on a closed database this throws too, and the batch is rejected like any failed commit.
      toggled = !waitInSqlite && this.noBusyWait();
      // A batch of one with nothing deferred needs no savepoint: its own transaction is all-or-nothing.
      const only = batch.length === 1 && tasks.length === 0 ? batch[0] : undefined;
      outcomes = only
        ? [this.attempt(() => this.single.immediate(only.input))]
        : this.runMany(
            batch.map((b) => b.input),
            tasks,
          );
      if (only && !outcomes[0]?.ok && isBusy((outcomes[0] as { error: unknown }).error))
        throw (outcomes[0] as { error: unknown }).error;
    } catch (error) {
      if (toggled) this.restoreBusyWait();
      if (isBusy(error) && toggled) return this.retryLater(batch, deferred);
      this.busySince = null;
      this.retries = 0;
      const fault = sqliteFault(error); // an unavailable file leaves as StoreUnavailableError
      for (const b of batch) b.reject(fault); // the commit itself failed: nothing of the batch is stored
      deferred?.reject(fault);
      return;
    }
    if (toggled) this.restoreBusyWait();
    this.busySince = null;
    this.retries = 0;
    deferred?.resolve();
    outcomes.forEach((o, i) => {
      const b = batch[i];
      if (!b) return;
      if (o.ok) b.resolve(o.value);
      else b.reject(sqliteFault(o.error));
    });
    try {
      this.afterCommit();
    } catch (error) {
      // Housekeeping after the commit must never take the process down (this runs from setImmediate).
      this.onError(error);
    }
  }

  /**
   * The batch at once; when that throws for any reason but a locked file (an admission's fault, or a write that
   * failed), again with a savepoint per admission, which fails only what throws. A failure of the retry's own
   * transaction (its BEGIN, a deferred write, the COMMIT) fails the batch as before.
   */
  private runMany(inputs: I[], tasks: (() => void)[]): Outcome<O>[] {
    try {
      return this.manyAtOnce.immediate(inputs, tasks).map((value) => ({ ok: true, value }));
    } catch (error) {
      this.rolledBack();
      if (isBusy(error)) throw error;
      return this.many.immediate(inputs, tasks);
    }
  }

  /** Turn SQLite's busy wait off for the batch's BEGIN (only when other connections take the write lock). */
  private noBusyWait(): boolean {
    if (this.noWait === null) return false;
    this.noWait.get();
    return true;
  }

  private restoreBusyWait(): void {
    if (this.db.open) this.wait?.get();
  }

  /** Another process holds the write lock: put the batch back at the head and try again next turn. */
  private retryLater(batch: Pending<I, O>[], deferred: Deferred | null): void {
    this.busySince ??= performance.now();
    this.pending = batch.concat(this.pending);
    if (deferred !== null) {
      // Writes deferred since join the retried ones and settle with them.
      const later = this.deferred;
      if (later !== null) {
        deferred.tasks.push(...later.tasks);
        deferred.done.then(later.resolve, later.reject);
      }
      this.deferred = deferred;
    }
    // Why: the first retry comes at the end of this turn; after that, 1 ms timers, so a lock held by another
    // process is not waited for by spinning the event loop (which would burn the CPU that process needs).
    if (this.retries++ === 0) return this.schedule();
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.flush(), 1);
  }

  private attempt(run: () => O): Outcome<O> {
    try {
      return { ok: true, value: run() };
    } catch (error) {
      return { ok: false, error };
    }
  }
}

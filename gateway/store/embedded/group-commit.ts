/**
 * Group commit: admissions submitted in the same turn of the event loop run in one IMMEDIATE transaction, each in
 * its own savepoint (all-or-nothing per admission, D10), and their promises resolve only after that transaction
 * committed. Under load this shares one commit among many requests; an answered admission is still durable.
 * Small writes that may wait for the next commit (keeps: deleting release marks) ride in the same transaction
 * (`defer`), so a request costs one commit, not two. A lone request never waits on a timer: the flush runs at the
 * end of the current turn (setImmediate), right after the I/O callbacks that queued it.
 */
import type Database from 'better-sqlite3';

type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

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
  /** Runs as BEGIN IMMEDIATE … COMMIT alone, and as a savepoint inside the batch transaction. */
  private readonly one: Database.Transaction<(input: I) => O>;
  private readonly many: Database.Transaction<(inputs: I[], tasks: (() => void)[]) => Outcome<O>[]>;

  constructor(
    db: Database.Database,
    one: (input: I) => O,
    private readonly afterCommit: () => void = () => {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.one = db.transaction(one);
    this.many = db.transaction((inputs: I[], tasks: (() => void)[]) => {
      for (const t of tasks) t();
      return inputs.map((input) => this.attempt(() => this.one(input)));
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
    this.schedule();
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
    const batch = this.pending;
    const deferred = this.deferred;
    if (batch.length === 0 && deferred === null) return; // drained early
    this.pending = [];
    this.deferred = null;
    const tasks = deferred?.tasks ?? [];
    let outcomes: Outcome<O>[];
    try {
      // A batch of one with nothing deferred needs no savepoint: its own transaction is all-or-nothing.
      const only = batch.length === 1 && tasks.length === 0 ? batch[0] : undefined;
      outcomes = only
        ? [this.attempt(() => this.one.immediate(only.input))]
        : this.many.immediate(
            batch.map((b) => b.input),
            tasks,
          );
    } catch (error) {
      for (const b of batch) b.reject(error); // the commit itself failed: nothing of the batch is stored
      deferred?.reject(error);
      return;
    }
    deferred?.resolve();
    outcomes.forEach((o, i) => {
      const b = batch[i];
      if (!b) return;
      if (o.ok) b.resolve(o.value);
      else b.reject(o.error);
    });
    try {
      this.afterCommit();
    } catch (error) {
      // Housekeeping after the commit must never take the process down (this runs from setImmediate).
      this.onError(error);
    }
  }

  private attempt(run: () => O): Outcome<O> {
    try {
      return { ok: true, value: run() };
    } catch (error) {
      return { ok: false, error };
    }
  }
}

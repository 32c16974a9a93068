/**
 * Group commit: admissions submitted in the same turn of the event loop run in one IMMEDIATE transaction, each in
 * its own savepoint (all-or-nothing per admission, D10), and their promises resolve only after that transaction
 * committed. Under load this shares one commit among many requests; an answered admission is still durable.
 */
import type Database from 'better-sqlite3';

type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

interface Pending<I, O> {
  input: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/** Runs `one` for every submitted input, batched per event-loop turn. */
export class GroupCommit<I, O> {
  private pending: Pending<I, O>[] = [];
  /** Runs as BEGIN IMMEDIATE … COMMIT alone, and as a savepoint inside the batch transaction. */
  private readonly one: Database.Transaction<(input: I) => O>;
  private readonly many: Database.Transaction<(inputs: I[]) => Outcome<O>[]>;

  constructor(
    db: Database.Database,
    one: (input: I) => O,
    private readonly afterCommit: () => void = () => {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.one = db.transaction(one);
    this.many = db.transaction((inputs: I[]) => inputs.map((input) => this.attempt(() => this.one(input))));
  }

  /** Queue `input`; resolves with its result once the batch holding it is committed. */
  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ input, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Run what is queued now (before closing the database). */
  drain(): void {
    if (this.pending.length > 0) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return; // drained early
    const batch = this.pending;
    this.pending = [];
    let outcomes: Outcome<O>[];
    try {
      // A batch of one needs no savepoint: its own transaction is all-or-nothing.
      const only = batch.length === 1 ? batch[0] : undefined;
      outcomes = only
        ? [this.attempt(() => this.one.immediate(only.input))]
        : this.many.immediate(batch.map((b) => b.input));
    } catch (error) {
      for (const b of batch) b.reject(error); // the commit itself failed: nothing of the batch is stored
      return;
    }
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

/**
 * Usage rows of one group commit, folded (issue 12): every admission of a batch adds 1 to the `free` or `billed`
 * column of each of its usage subjects; instead of one upsert per admission and subject, the batch's additions are
 * summed per (day, subject) and written by one upsert each, in the same transaction, just before its COMMIT. The
 * rows are exactly what the per-admission upserts wrote: an admission rolled back to its savepoint takes its
 * additions back (`mark`/`rollback`), a batch whose transaction fails writes none, and nothing reads usage rows
 * inside an admission.
 */
import type Database from 'better-sqlite3';

/** The sums of the admissions of the current transaction, per day and subject. */
export class UsageFold {
  private readonly entries: { day: string; subject: string; column: 'free' | 'billed' }[] = [];
  private readonly upsert: Database.Statement;

  constructor(db: Database.Database) {
    this.upsert = db.prepare(
      `INSERT INTO usage_daily (day, subject, free, billed, refused) VALUES (?, ?, ?, ?, 0)
       ON CONFLICT (subject, day) DO UPDATE SET free = free + excluded.free, billed = billed + excluded.billed`,
    );
  }

  /** Count one admission of `column` for `subject` on `day`. */
  add(day: string, subject: string, column: 'free' | 'billed'): void {
    this.entries.push({ day, subject, column });
  }

  /** Where the additions of the admission about to run start. */
  mark(): number {
    return this.entries.length;
  }

  /** Take back the additions made since `at` (the admission was rolled back). */
  rollback(at: number): void {
    this.entries.length = at;
  }

  /** Write the sums (call inside the transaction, before its COMMIT) and start again. */
  write(): void {
    if (this.entries.length === 0) return;
    const sums = new Map<string, { day: string; subject: string; free: number; billed: number }>();
    try {
      for (const e of this.entries) {
        const k = `${e.day}\t${e.subject}`;
        let s = sums.get(k);
        if (s === undefined) {
          s = { day: e.day, subject: e.subject, free: 0, billed: 0 };
          sums.set(k, s);
        }
        s[e.column] += 1;
      }
      for (const s of sums.values()) this.upsert.run(s.day, s.subject, s.free, s.billed);
    } finally {
      this.entries.length = 0;
    }
  }

  /** Forget everything (the transaction failed). */
  clear(): void {
    this.entries.length = 0;
  }
}

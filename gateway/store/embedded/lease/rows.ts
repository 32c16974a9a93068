/**
 * The owner's side of the embedded leases (D33 with `workers: N`): the SQLite rows stay the owner (accounts.balance,
 * counters_daily.used) and two tables record what is leased. `embedded_holders` has one row per holder incarnation
 * (a worker process's life; its id is the lease epoch) with `alive_until`, renewed by each of its transactions (the
 * fold, every second, and every grant); `embedded_leases` holds the units each incarnation reserved per subject
 * (an account's balance, or one counter-day's free units). A holder whose `alive_until` passed holds nothing: its
 * rows no longer count (the reclaim after the TTL) and the next fold of any holder deletes them. Like
 * embedded_journal these tables are the embedded store's own (created here, never on PostgreSQL).
 *
 * Every function here runs inside a transaction its caller opened: a grant is one atomic owner step,
 * `grant = min(ask, available - leased)`.
 */
import type Database from 'better-sqlite3';

/** A lease subject: an account's balance, or one day's free counter. */
export function balanceSubject(accountId: string): string {
  return `b\n${accountId}`;
}

export function counterSubject(day: string, counterId: string): string {
  return `c\n${day}\n${counterId}`;
}

/** The owner's statements on one connection. */
export class LeaseRows {
  private readonly st;

  constructor(db: Database.Database) {
    db.exec(
      `CREATE TABLE IF NOT EXISTS embedded_holders (
         id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, alive_until INTEGER NOT NULL);
       CREATE INDEX IF NOT EXISTS embedded_holders_name ON embedded_holders (name);
       CREATE TABLE IF NOT EXISTS embedded_leases (
         holder INTEGER NOT NULL, subject TEXT NOT NULL, units INTEGER NOT NULL,
         PRIMARY KEY (holder, subject)) WITHOUT ROWID;
       CREATE INDEX IF NOT EXISTS embedded_leases_subject ON embedded_leases (subject);`,
    );
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      register: p('INSERT INTO embedded_holders (name, alive_until) VALUES (?, ?)'),
      aliveUntil: p('SELECT alive_until FROM embedded_holders WHERE id = ?').pluck(),
      renew: p('UPDATE embedded_holders SET alive_until = ? WHERE id = ?'),
      holders: p('SELECT COUNT(*) FROM embedded_holders WHERE alive_until >= ?').pluck(),
      leasedLive: p(
        `SELECT COALESCE(SUM(l.units), 0) FROM embedded_leases l JOIN embedded_holders h ON h.id = l.holder
         WHERE l.subject = ? AND h.alive_until >= ?`,
      ).pluck(),
      units: p('SELECT units FROM embedded_leases WHERE holder = ? AND subject = ?').pluck(),
      setUnits: p(
        `INSERT INTO embedded_leases (holder, subject, units) VALUES (?, ?, ?)
         ON CONFLICT (holder, subject) DO UPDATE SET units = excluded.units`,
      ),
      drop: p('DELETE FROM embedded_leases WHERE holder = ? AND subject = ?'),
      reap: p(
        'DELETE FROM embedded_leases WHERE holder IN (SELECT id FROM embedded_holders WHERE alive_until < ?)',
      ),
      voidName: p(
        'DELETE FROM embedded_leases WHERE holder IN (SELECT id FROM embedded_holders WHERE name = ?)',
      ),
      forgetName: p('DELETE FROM embedded_holders WHERE name = ?'),
      voidAll: p('DELETE FROM embedded_leases'),
      forgetAll: p('DELETE FROM embedded_holders'),
      balance: p('SELECT balance FROM accounts WHERE id = ?').pluck(),
      used: p('SELECT used FROM counters_daily WHERE day = ? AND counter_id = ?').pluck(),
      deadLeased: p(
        `SELECT COALESCE(SUM(l.units), 0) FROM embedded_leases l JOIN embedded_holders h ON h.id = l.holder
         WHERE h.alive_until < ?`,
      ).pluck(),
    };
  }

  /** A new incarnation of holder `name`: its earlier incarnations' leases are void (their journal was folded). */
  register(name: string, aliveUntil: number): number {
    this.st.voidName.run(name);
    this.st.forgetName.run(name);
    return Number(this.st.register.run(name, aliveUntil).lastInsertRowid);
  }

  /** Holder `name` stops cleanly: its leases go back at once. */
  retire(name: string): void {
    this.st.voidName.run(name);
    this.st.forgetName.run(name);
  }

  /** Whether incarnation `id` still holds its leases at `now`. */
  alive(id: number, now: number): boolean {
    const until = this.st.aliveUntil.get(id) as number | undefined;
    return until !== undefined && until >= now;
  }

  renew(id: number, aliveUntil: number): void {
    this.st.renew.run(aliveUntil, id);
  }

  /** Live holders (H). */
  holders(now: number): number {
    return Math.max(1, this.st.holders.get(now) as number);
  }

  /** Units leased on `subject` by live holders. */
  leased(subject: string, now: number): number {
    return this.st.leasedLive.get(subject, now) as number;
  }

  /** What incarnation `id` holds of `subject` (0 when nothing). */
  units(id: number, subject: string): number {
    return (this.st.units.get(id, subject) as number | undefined) ?? 0;
  }

  setUnits(id: number, subject: string, units: number): void {
    if (units > 0) this.st.setUnits.run(id, subject, units);
    else this.st.drop.run(id, subject);
  }

  /** The reclaim: leases of holders past `alive_until` are deleted (they already count for nothing). */
  reap(now: number): number {
    return this.st.reap.run(now).changes;
  }

  /** Units held by holders past their TTL, not reaped yet (tests). */
  deadLeased(now: number): number {
    return this.st.deadLeased.get(now) as number;
  }

  /** Nobody holds anything (a process alone on the file, after it folded every holder's journal). */
  voidEverything(): void {
    this.st.voidAll.run();
    this.st.forgetAll.run();
  }

  /** The balance of an account (null: no such account). */
  balance(accountId: string): number | null {
    return (this.st.balance.get(accountId) as number | undefined) ?? null;
  }

  /** A counter's used value at the owner. */
  used(day: string, counterId: string): number {
    return (this.st.used.get(day, counterId) as number | undefined) ?? 0;
  }
}

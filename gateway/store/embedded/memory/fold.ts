/**
 * The fold (D34): the journal's records since the last fold, summed, written in one transaction together with the
 * journal position they reach, so each record is applied exactly once (a repeat finds the position already there).
 * It writes the daily counters, the balances, D35's hourly charge rows, usage_daily (free, billed, refused) and the
 * slot writes. A balance is never taken below zero: when another process lowered it under what this process had
 * kept (its commits are seen at most a turn late), the difference is written off and reported.
 */
import type Database from 'better-sqlite3';
import type { HourlyCharge } from '../../charge-hour';
import { writeHourlyCharges } from '../ledger-hour';
import type { OwnerRecord } from './records';

const HOUR_MS = 3_600_000;

/** What a fold applied, for the owner's memory (its pending parts move into base). */
export interface Folded {
  /** day → counter id → increments folded. */
  counters: Map<string, Map<string, number>>;
  /** account → what was kept (pending folded) and its balance after the fold. */
  balances: Map<string, { kept: number; balance: number }>;
  /** Slot writes folded: [scope, record number]. */
  slots: [string, number][];
  /** Minor units kept but not charged because the balance was lower (see the module comment). */
  writtenOff: number;
}

interface Usage {
  day: string;
  subject: string;
  free: number;
  billed: number;
  refused: number;
}

/** The fold's statements on one connection. */
export class Folder {
  private readonly st;
  private readonly run: Database.Transaction<
    (records: OwnerRecord[], position: number, after: number) => Folded | null
  >;
  /** Test hook (faults): kill the process before the COMMIT of the fold with this number of records > 0. */
  private killAt = Number(process.env.GEOGATE_TEST_KILL_IN_FOLD ?? 0);

  constructor(
    private readonly db: Database.Database,
    private readonly name: string,
  ) {
    db.exec(
      `CREATE TABLE IF NOT EXISTS embedded_journal (name TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID`,
    );
    const p = (sql: string) => db.prepare(sql);
    this.st = {
      position: p('SELECT position FROM embedded_journal WHERE name = ?').pluck(),
      setPosition: p(
        `INSERT INTO embedded_journal (name, position) VALUES (?, ?)
         ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
      ),
      counterAdd: p(
        `INSERT INTO counters_daily (day, counter_id, used) VALUES (?, ?, ?)
         ON CONFLICT (day, counter_id) DO UPDATE SET used = used + excluded.used`,
      ),
      balance: p('SELECT balance FROM accounts WHERE id = ?').pluck(),
      debit: p('UPDATE accounts SET balance = balance - ? WHERE id = ?'),
      usageAdd: p(
        `INSERT INTO usage_daily (day, subject, free, billed, refused) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (subject, day) DO UPDATE SET free = free + excluded.free, billed = billed + excluded.billed,
         refused = refused + excluded.refused`,
      ),
      slotWrite: p(
        `INSERT INTO slots (scope, member, first_seen, last_seen) VALUES (?, ?, ?, ?)
         ON CONFLICT (scope, member) DO UPDATE SET first_seen = MAX(first_seen, excluded.first_seen),
         last_seen = MAX(last_seen, excluded.last_seen)`,
      ),
      slotExpired: p('DELETE FROM slots WHERE scope = ? AND member = ? AND first_seen = ? AND last_seen = ?'),
    };
    this.run = db.transaction((records, position, after) => this.apply(records, position, after));
  }

  /** The journal position the last fold recorded (0 when none). */
  position(): number {
    return (this.st.position.get(this.name) as number | undefined) ?? 0;
  }

  /** Apply `records` (the frames after `after` up to `position`) in one IMMEDIATE transaction; null: already applied. */
  fold(records: OwnerRecord[], position: number, after: number): Folded | null {
    return this.run.immediate(records, position, after);
  }

  private apply(records: OwnerRecord[], position: number, after: number): Folded | null {
    const stored = this.position();
    if (stored >= position) return null; // an ambiguous failure repeated: already applied
    if (stored !== after)
      throw new Error(`journal ${this.name}: fold after ${after}, but the store is at ${stored}`);
    const out: Folded = { counters: new Map(), balances: new Map(), slots: [], writtenOff: 0 };
    const usage = new Map<string, Usage>();
    const hours = new Map<string, HourlyCharge>();
    /** Slot writes not yet run, one per (scope, member): [scope, member, first seen, last seen]. */
    const slotWrites = new Map<string, [string, string, number, number]>();
    const use = (day: string, subject: string): Usage => {
      const k = `${day}\n${subject}`;
      let u = usage.get(k);
      if (u === undefined) usage.set(k, (u = { day, subject, free: 0, billed: 0, refused: 0 }));
      return u;
    };
    for (const r of records) {
      if (r.t === 'r') {
        for (const s of r.u) use(r.d, s).refused += 1;
        continue;
      }
      if (r.c.length > 0) {
        let ids = out.counters.get(r.d);
        if (ids === undefined) out.counters.set(r.d, (ids = new Map()));
        for (const id of r.c) ids.set(id, (ids.get(id) ?? 0) + 1);
      }
      if (r.a !== null && r.m > 0) {
        const b = out.balances.get(r.a);
        if (b === undefined) out.balances.set(r.a, { kept: r.m, balance: 0 });
        else b.kept += r.m;
        const hourStart = Math.floor(r.h / HOUR_MS) * HOUR_MS;
        const k = `${r.a}\n${r.k ?? ''}\n${hourStart}`;
        const row = hours.get(k);
        if (row === undefined) hours.set(k, { accountId: r.a, keyId: r.k, hourStart, count: 1, amount: r.m });
        else {
          row.count += 1;
          row.amount += r.m;
        }
      }
      for (const s of r.u) use(r.d, s)[r.b === 1 ? 'billed' : 'free'] += 1;
      if (r.s !== undefined)
        for (const w of r.s) {
          // The upsert keeps the larger first and last seen, so the writes of one member fold into one (MAX is
          // order-free); a deletion of that member runs after the writes before it, as in record order.
          const k = `${w[0]}\n${w[1]}`;
          const seen = slotWrites.get(k);
          if (seen === undefined) slotWrites.set(k, [w[0], w[1], w[2], w[3]]);
          else {
            if (w[2] > seen[2]) seen[2] = w[2];
            if (w[3] > seen[3]) seen[3] = w[3];
          }
          out.slots.push([w[0], r.n]);
        }
      if (r.x !== undefined)
        for (const w of r.x) {
          const k = `${w[0]}\n${w[1]}`;
          const seen = slotWrites.get(k);
          if (seen !== undefined) {
            this.st.slotWrite.run(seen[0], seen[1], seen[2], seen[3]);
            slotWrites.delete(k);
          }
          this.st.slotExpired.run(w[0], w[1], w[2], w[3]);
        }
    }
    for (const w of slotWrites.values()) this.st.slotWrite.run(w[0], w[1], w[2], w[3]);
    for (const [day, ids] of out.counters) for (const [id, n] of ids) this.st.counterAdd.run(day, id, n);
    const rows = [...hours.values()];
    for (const [account, b] of out.balances) {
      const balance = (this.st.balance.get(account) as number | undefined) ?? null;
      const charged = balance === null ? 0 : Math.min(balance, b.kept);
      if (charged > 0) this.st.debit.run(charged, account);
      b.balance = balance === null ? 0 : balance - charged;
      if (charged < b.kept) {
        out.writtenOff += b.kept - charged;
        writeOff(rows, account, b.kept - charged);
      }
    }
    writeHourlyCharges(this.db, rows);
    for (const u of usage.values()) this.st.usageAdd.run(u.day, u.subject, u.free, u.billed, u.refused);
    this.st.setPosition.run(this.name, position);
    if (this.killAt > 0 && records.length > 0 && --this.killAt === 0) process.kill(process.pid, 'SIGKILL');
    return out;
  }
}

/** Take `amount` off the account's hourly rows, newest hours first (they were kept last). */
function writeOff(rows: HourlyCharge[], account: string, amount: number): void {
  let left = amount;
  for (let i = rows.length - 1; i >= 0 && left > 0; i--) {
    const r = rows[i];
    if (r === undefined || r.accountId !== account) continue;
    const cut = Math.min(r.amount, left);
    r.amount -= cut;
    left -= cut;
  }
}

/**
 * A lease holder's fold (D34 with leases): the memory owner's fold (../memory/fold.ts: counters, balances, D35's
 * hourly rows, usage, slot writes and the journal position, exactly once) and, in the same transaction, the kept
 * units taken off the lease rows they were spent from (a TigerBeetle-style post: charged units leave both the
 * balance or counter and the lease). A kept record names its lease epoch (the holder incarnation that admitted it),
 * so a journal replayed by a later incarnation posts against the dead one's rows while they last; units whose lease
 * was already reclaimed are posted late, capped at the balance as for any outside write (never below zero).
 */
import type Database from 'better-sqlite3';
import { Folder, type Folded } from '../memory/fold';
import type { KeptRecord, RefusedRecord } from '../memory/records';
import { balanceSubject, counterSubject, type LeaseRows } from './rows';

/** A kept record of a holder: the memory owner's, with the lease epoch it was admitted under. */
export interface HolderKept extends KeptRecord {
  /** The holder incarnation (embedded_holders.id) whose lease the units came from. */
  e: number;
}

export type HolderRecord = HolderKept | RefusedRecord;

/** Units posted per epoch and subject. */
export type Posted = Map<number, Map<string, number>>;

/** The fold of one holder name's journal. */
export class LeaseFold {
  private readonly folder: Folder;
  private readonly run: Database.Transaction<
    (
      records: HolderRecord[],
      position: number,
      after: number,
      inside: () => void,
    ) => {
      out: Folded;
      posted: Posted;
    } | null
  >;

  constructor(
    db: Database.Database,
    name: string,
    private readonly rows: LeaseRows,
  ) {
    this.folder = new Folder(db, name);
    this.run = db.transaction((records, position, after, inside) => {
      const out = this.folder.fold(records, position, after);
      if (out === null) return null;
      const posted = this.post(records);
      inside();
      return { out, posted };
    });
  }

  /** The journal position the last fold of this name recorded. */
  position(): number {
    return this.folder.position();
  }

  /** Folds `records` in one IMMEDIATE transaction, `inside` running in it last; null when already applied. */
  fold(
    records: HolderRecord[],
    position: number,
    after: number,
    inside: () => void = () => {},
  ): { out: Folded; posted: Posted } | null {
    return this.run.immediate(records, position, after, inside);
  }

  private post(records: HolderRecord[]): Posted {
    const posted: Posted = new Map();
    const add = (e: number, subject: string, units: number): void => {
      let m = posted.get(e);
      if (m === undefined) posted.set(e, (m = new Map()));
      m.set(subject, (m.get(subject) ?? 0) + units);
    };
    for (const r of records) {
      if (r.t !== 'k' || typeof r.e !== 'number') continue;
      for (const id of r.c) add(r.e, counterSubject(r.d, id), 1);
      if (r.a !== null && r.m > 0) add(r.e, balanceSubject(r.a), r.m);
    }
    for (const [e, subjects] of posted)
      for (const [subject, units] of subjects) {
        const held = this.rows.units(e, subject);
        if (held > 0) this.rows.setUnits(e, subject, Math.max(0, held - units));
      }
    return posted;
  }
}

/**
 * Settling for the two admission parts that decide in memory and journal their keeps (D34): the memory owner
 * (owner.ts, one process) and the lease holder (../lease/holder.ts, one of several). Both hold their admissions in
 * flight in a map by plan id, settle a ticket and its units the same way, write the same keep record (the holder's
 * with its lease epoch), release what nobody settled after the reservation timeout, and read `PRAGMA data_version`
 * at most once per event-loop turn. What differs is where a reservation's units live (the owner's state, or the
 * holder's leases): the hooks `onKept`, `onReleased` and `slotWrites`.
 *
 * This runs per admitted request: no allocation or promise beyond what each part did on its own (a ticket with one
 * unit appends one record; keep returns the journal's per-turn promise; release and refusals a settled promise).
 */
import type Database from 'better-sqlite3';
import type { Clock } from '../../../core/clock';
import type { Journal } from '../../../journal/journal';
import type { StoreLogger } from '../../deps';
import type { Ticket } from '../../types';
import { sqliteFault } from '../faults';
import type { KeyCache } from '../key-cache';
import { EmbeddedAdmission } from '../port-admission';
import type { KeptRecord, RefusedRecord } from './records';

/** An expired slot entry an admission found (deleted when kept, exactly as found): [scope, member, firstSeen, lastSeen]. */
export type Expired = [string, string, number, number];

/**
 * What one admission (or one unit of a plan) holds until it is kept or released, whichever part decided it: `C` a
 * counter's and `B` a balance's in-memory entry its units were taken from, `S` one of its slot uses.
 */
export interface Settleable<C, B, S> {
  id: string;
  /** UTC day of its counters and usage. */
  day: string;
  /** The counters it took one unit of each, and their ids. */
  counters: C[];
  counterIds: string[];
  balance: B | null;
  accountId: string | null;
  /** What a keep charges (minor units). */
  amount: number;
  keyId: string | null;
  /** When it was admitted (plan time). */
  at: number;
  usage: readonly string[];
  billed: boolean;
  slots: S[];
  expired: Expired[];
}

/** A slot write of a keep record: [scope, member, firstSeen, lastSeen]. */
export type SlotWrite = [string, string, number, number];

const RESOLVED = Promise.resolve();

/** An admission part that decides in memory: its reservations (`R`) settled into a journal of `K` keep records. */
export abstract class JournalledAdmission<
  R extends Settleable<unknown, unknown, unknown>,
  K extends KeptRecord,
> extends EmbeddedAdmission {
  /** Admissions in flight, by plan id (and one per unit of a plan). */
  protected readonly reserved = new Map<string, R>();
  protected journal: Journal<K | RefusedRecord> | null = null;
  /** The file's `PRAGMA data_version` as last read (-1: not yet); another connection's commit moves it. */
  protected sqliteVersion = -1;
  /** Whether this turn read the version already (cleared at the turn's end). */
  protected checked = false;
  private readonly endTurn = (): void => void (this.checked = false);
  private dataVersion!: Database.Statement;
  private seq = 0;

  constructor(
    protected readonly sqlite: Database.Database,
    keyCache: KeyCache,
    /** Ticket.undo's tag: a ticket with another (another store's, or a mangled copy) is a bug. */
    private readonly undoTag: string,
    private readonly timeoutMs: number | undefined,
    protected readonly clock: Clock,
    protected readonly log?: StoreLogger,
  ) {
    super(sqlite, keyCache, {}, log);
  }

  /** Where a kept reservation's units go: from in flight to kept and not folded yet. */
  protected abstract onKept(res: R): void;
  /** Where a released reservation's units go: back to what the next admission may take. */
  protected abstract onReleased(res: R): void;
  /** A kept reservation's slot writes (its number `n` in this process names it until folded). */
  protected abstract slotWrites(res: R, n: number): SlotWrite[];
  /** Complete a keep record with what only this part records (the holder's lease epoch). */
  protected abstract stamp(record: KeptRecord, res: R): K;

  protected prepareTurnCheck(): void {
    this.dataVersion = this.sqlite.prepare('PRAGMA data_version').pluck();
  }

  /**
   * Read `PRAGMA data_version` for this turn (call when `checked` is false): whether it moved since the last turn's
   * read, i.e. another connection committed (never on the first read).
   */
  protected turnCheck(): boolean {
    this.checked = true;
    setImmediate(this.endTurn);
    const v = this.dataVersion.get() as number;
    const moved = this.sqliteVersion !== -1 && v !== this.sqliteVersion;
    this.sqliteVersion = v;
    return moved;
  }

  /** Fold everything kept so far. */
  async foldNow(): Promise<void> {
    const j = this.journal;
    if (j === null) return;
    j.flush();
    while (j.foldedPosition < j.position) await j.foldNow();
  }

  /** Release the admissions in flight longer than the reservation timeout; how many. */
  override sweep(): number {
    const timeout = this.timeoutMs;
    if (timeout === undefined) return 0;
    const before = this.clock.now() - timeout;
    let n = 0;
    for (const [id, res] of this.reserved) {
      if (res.at >= before) continue;
      this.releaseOne(id);
      n++;
    }
    if (n > 0) this.log?.warn({ released: n }, 'embedded store: admissions never settled were released');
    return n;
  }

  override release(ticket: Ticket): Promise<void> {
    const u = ticket.undo as { v?: unknown } | null;
    if (u === null || typeof u !== 'object' || u.v !== this.undoTag)
      return Promise.reject(new TypeError('release: the ticket was not issued by the embedded store'));
    try {
      if (ticket.units !== undefined) for (const t of ticket.units) this.releaseOne(t.planId);
      this.releaseOne(ticket.planId);
    } catch (err) {
      return Promise.reject(sqliteFault(err));
    }
    return RESOLVED;
  }

  override keep(ticket: Ticket): Promise<void> {
    const j = this.journal;
    if (j === null) return Promise.reject(new Error('embedded store: the store is closed'));
    if (ticket.units !== undefined) for (const t of ticket.units) this.keepOne(j, t.planId);
    this.keepOne(j, ticket.planId);
    return j.written();
  }

  override recordRefusal(subjects: string[], day: string): Promise<void> {
    if (subjects.length > 0) this.journal?.append({ t: 'r', d: day, u: subjects });
    return RESOLVED;
  }

  /** Release one reservation (a unit, or a plan's shared part); one settled already is a no-op. */
  protected releaseOne(id: string): void {
    const res = this.reserved.get(id);
    if (res === undefined) return;
    this.reserved.delete(id);
    this.onReleased(res);
  }

  private keepOne(j: Journal<K | RefusedRecord>, id: string): void {
    const res = this.reserved.get(id);
    if (res === undefined) return; // settled already (or released by the sweep): a late keep is a no-op
    this.reserved.delete(id);
    this.onKept(res);
    if (res.counters.length === 0 && res.amount === 0 && res.usage.length === 0 && res.slots.length === 0)
      return; // nothing to fold (a plan's shared part without slots)
    const n = ++this.seq;
    const r = this.stamp(
      {
        t: 'k',
        n,
        d: res.day,
        c: res.counterIds,
        a: res.accountId,
        m: res.amount,
        k: res.keyId,
        h: res.at,
        u: res.usage,
        b: res.billed ? 1 : 0,
      },
      res,
    );
    if (res.slots.length > 0) r.s = this.slotWrites(res, n);
    if (res.expired.length > 0) r.x = res.expired;
    j.append(r);
  }
}

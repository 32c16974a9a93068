/**
 * Admission decided in memory by the process that owns the store (D33: the embedded store with one worker; no
 * leases). Identification is the direct path's (key cache, whitelist lookups). An admission is decided from the
 * owner's state (state.ts, decide.ts) and answered at once; a keep appends a self-contained record to the journal
 * (one write per event-loop turn, D34) and a release just drops the reservation (D11: a released admission never
 * reaches SQLite). Every `foldEveryMs` the journal is fsynced and folded (fold.ts); on open its tail is folded again,
 * exactly once. Admissions in flight when the process dies were never written: they are released by its death.
 *
 * Other writers: the other ports of this process fold first and mark the state stale after a write (store.ts);
 * another process's commits (the CLI) show in `PRAGMA data_version`, read at most once per turn. A stale state drops
 * its idle entries and reads the base of the busy ones again.
 */
import type Database from 'better-sqlite3';
import { systemClock, type Clock } from '../../../core/clock';
import { Journal } from '../../../journal/journal';
import type { StoreLogger } from '../../deps';
import type { AdmissionPlan, AdmissionResult } from '../../types';
import { sqliteFault } from '../faults';
import type { KeyCache } from '../key-cache';
import type { Pruner } from '../prune';
import { decide, MEMORY_UNDO, type Reservation } from './decide';
import { Folder } from './fold';
import type { KeptRecord, OwnerRecord } from './records';
import { JournalledAdmission, type SlotWrite } from './settle';
import { OwnerState, undoChange, type ScopeEntry } from './state';

/** The memory owner's options (EmbeddedOptions.memory). */
export interface MemoryOptions {
  /** The journal's folder (default: the SQLite file's path + ".journal"). */
  journalDir: string;
  /** D34: fsync and fold every this many ms (default 1000). */
  foldEveryMs?: number;
  /** State not used for this long (plan time) is dropped once folded (default 60 s). */
  idleMs?: number;
  /**
   * Admissions neither kept nor released within this long (by `clock`) are released, as the direct path's sweeper
   * does for a crashed process's: a caller that never settles (a library's `admit` without `settle`) must not hold
   * units for ever. Absent: held until settled.
   */
  reservationTimeoutMs?: number;
  clock?: Clock;
}

/** One journal per owner process: the embedded store with one worker has one writer. */
const JOURNAL_NAME = 'owner';

/** The embedded store's admission part when the process owns the store. */
export class MemoryAdmission extends JournalledAdmission<Reservation, KeptRecord> {
  private state!: OwnerState;
  private folder: Folder | null = null;
  private pruner: Pruner | null = null;
  private evictTimer: NodeJS.Timeout | null = null;
  private sweepEvery: NodeJS.Timeout | null = null;
  private stale = false;
  private latestNow = 0;
  /** Kept minor units not charged (an outside write lowered the balance first; fold.ts). */
  writtenOff = 0;

  constructor(
    sqlite: Database.Database,
    keyCache: KeyCache,
    private readonly memory: MemoryOptions,
    log?: StoreLogger,
  ) {
    super(sqlite, keyCache, MEMORY_UNDO.v, memory.reservationTimeoutMs, memory.clock ?? systemClock, log);
  }

  /** Prepare the statements (once the tables exist). */
  override start(pruner: Pruner, busyTimeoutMs: number | null): void {
    super.start(pruner, busyTimeoutMs);
    this.state = new OwnerState(this.sqlite);
    this.prepareTurnCheck();
    this.pruner = pruner;
  }

  /** Open the journal, folding what the last process kept and did not fold (after start()). */
  async open(): Promise<void> {
    const folder = new Folder(this.sqlite, JOURNAL_NAME);
    this.folder = folder;
    this.journal = await Journal.open<OwnerRecord>({
      dir: this.memory.journalDir,
      name: JOURNAL_NAME,
      foldedPosition: folder.position(),
      fold: (records, position, after) => this.applyFold(records, position, after),
      foldEveryMs: this.memory.foldEveryMs ?? 1000,
      onError: (err) => this.log?.error({ err }, 'embedded store: journal write or fold failed'),
    });
    const idle = this.memory.idleMs ?? 60_000;
    this.evictTimer = setInterval(() => this.state.evict(this.latestNow - idle), Math.max(1000, idle / 4));
    this.evictTimer.unref();
    const timeout = this.memory.reservationTimeoutMs;
    if (timeout !== undefined) {
      this.sweepEvery = setInterval(
        () => this.sweep(),
        Math.min(10_000, Math.max(250, Math.floor(timeout / 4))),
      );
      this.sweepEvery.unref();
    }
  }

  /** Another port of this process wrote SQLite: read the state again before the next admission. */
  invalidate(): void {
    this.stale = true;
  }

  /** Fold what is kept, close the journal; admissions still in flight are released (never written). */
  async close(): Promise<void> {
    if (this.evictTimer) clearInterval(this.evictTimer);
    if (this.sweepEvery) clearInterval(this.sweepEvery);
    super.stop();
    const j = this.journal;
    this.journal = null;
    await j?.close();
  }

  /** Admissions in flight (overlay.ts). */
  reservations(): Iterable<Reservation> {
    return this.reserved.values();
  }

  /** The slot set of `scope` when held (overlay.ts). */
  heldScope(scope: string): ScopeEntry | undefined {
    if (this.stale) {
      this.stale = false;
      this.state.reload();
    }
    return this.state.scopes.get(scope);
  }

  /** What admissions in flight reserved of an account's balance (overlay.ts). */
  inflightCharge(accountId: string): number {
    return this.state.balances.get(accountId)?.inflight ?? 0;
  }

  /** Stop as a kill -9 would: nothing folded or written any more, admissions in flight lost (crash tests). */
  abandon(): void {
    if (this.evictTimer) clearInterval(this.evictTimer);
    if (this.sweepEvery) clearInterval(this.sweepEvery);
    this.journal?.abandon();
    this.journal = null;
  }

  /** Entries held in memory (counters, balances, slot sets) and admissions in flight. */
  held(): { entries: number; inflight: number } {
    return { entries: this.state.size(), inflight: this.reserved.size };
  }

  override admit(plan: AdmissionPlan): Promise<AdmissionResult> {
    try {
      if (!this.checked || this.stale) this.refresh();
      if (this.journal === null) throw new Error('embedded store: migrate() was not called');
      this.latestNow = plan.now;
      return Promise.resolve(decide(this.state, plan, this.reserved));
    } catch (err) {
      return Promise.reject(sqliteFault(err));
    }
  }

  /** Once per turn: another process's commits; and this process's other ports' writes. */
  private refresh(): void {
    if (!this.checked && this.turnCheck()) this.stale = true;
    if (this.stale) {
      this.stale = false;
      this.state.reload();
    }
  }

  protected onReleased(res: Reservation): void {
    for (const c of res.counters) c.inflight -= 1;
    if (res.balance !== null) res.balance.inflight -= res.amount;
    for (const h of res.slots) {
      h.entry.inflight.delete(h.change);
      undoChange(h.entry.members, h.change);
    }
  }

  protected onKept(res: Reservation): void {
    for (const c of res.counters) {
      c.inflight -= 1;
      c.pending += 1;
    }
    if (res.balance !== null) {
      res.balance.inflight -= res.amount;
      res.balance.pending += res.amount;
    }
  }

  /** A kept slot change moves from in flight to pending (kept, not folded) under the record's number. */
  protected slotWrites(res: Reservation, n: number): SlotWrite[] {
    return res.slots.map((h) => {
      const c = h.change;
      const first = c.op === 'add' ? c.at : c.first;
      h.entry.inflight.delete(c);
      h.entry.pending.set(n, [c.member, first, c.at]);
      return [h.scope, c.member, first, c.at];
    });
  }

  protected stamp(record: KeptRecord): KeptRecord {
    return record;
  }

  /** The journal's fold: SQLite first (one transaction), then the owner's pending parts move into base. */
  private applyFold(records: OwnerRecord[], position: number, after: number): void {
    const folder = this.folder;
    if (folder === null) throw new Error('embedded store: the journal is not open');
    const out = folder.fold(records, position, after);
    if (out === null) return;
    for (const [day, ids] of out.counters) {
      const held = this.state.days.get(day);
      if (held === undefined) continue;
      for (const [id, n] of ids) {
        const c = held.get(id);
        if (c === undefined) continue;
        c.pending -= n;
        c.base += n;
      }
    }
    for (const [account, b] of out.balances) {
      const e = this.state.balances.get(account);
      if (e === undefined) continue;
      e.pending -= b.kept;
      e.base = b.balance;
    }
    for (const [scope, n] of out.slots) this.state.scopes.get(scope)?.pending.delete(n);
    if (out.writtenOff > 0) {
      this.writtenOff += out.writtenOff;
      this.log?.error(
        { writtenOff: out.writtenOff },
        'embedded store: kept charges above the balance written off',
      );
    }
    try {
      this.pruner?.maybePrune(this.latestNow);
    } catch (err) {
      this.log?.error({ err }, 'embedded store: pruning failed');
    }
  }
}

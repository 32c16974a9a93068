/**
 * The embedded store's admission part (AdmissionStore): identification through the key cache, admissions grouped per
 * event-loop turn (group-commit.ts) and committed before their promises resolve, settlement, and crash recovery
 * (inflight.ts) when a reservation timeout is set. SQLite faults leave as StoreUnavailableError (faults.ts).
 */
import type Database from 'better-sqlite3';
import { systemClock, type Clock } from '../../core/clock';
import type { AdmissionCore } from '../compose';
import type { StoreLogger } from '../deps';
import { addressKey } from '../ranges';
import { toAccount, toKeyIdentity } from '../rows';
import type { Account, AdmissionPlan, AdmissionResult, KeyIdentity, Ticket } from '../types';
import {
  admissionsMark,
  admitInTransaction,
  asEmbeddedUndo,
  releaseInTransaction,
  type ReleaseMark,
} from './admission';
import { sqliteFault } from './faults';
import { GroupCommit } from './group-commit';
import { prepareHot, type HotStatements } from './hot-statements';
import { InflightLog } from './inflight';
import type { KeyCache } from './key-cache';
import type { Pruner } from './prune';
import { UsageFold } from './usage-fold';

/** What admission needs from the store's options. */
export interface AdmissionOptions {
  /** Crash recovery: admissions neither kept nor released within it are released (inflight.ts). */
  reservationTimeoutMs?: number;
  clock?: Clock;
}

/** Identification, admission and settlement on one SQLite connection. */
export class EmbeddedAdmission implements AdmissionCore {
  private hot: HotStatements | null = null;
  private batcher: GroupCommit<AdmissionPlan, AdmissionResult> | null = null;
  private inflight: InflightLog | null = null;
  /** The release mark: the in-flight log when crash recovery is on, else the admissions table. */
  private mark: ReleaseMark | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private lastNow = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly keyCache: KeyCache,
    private readonly opts: AdmissionOptions,
    private readonly logger?: StoreLogger,
  ) {}

  /** Prepare the statements and start the group commit (and the sweeper): once the tables exist. */
  start(pruner: Pruner, busyTimeoutMs: number | null): void {
    const st = prepareHot(this.db);
    this.hot = st;
    const log = this.opts.reservationTimeoutMs !== undefined ? new InflightLog(this.db) : null;
    this.inflight = log;
    const mark = log ?? admissionsMark(st);
    this.mark = mark;
    const usage = new UsageFold(this.db);
    const one = (plan: AdmissionPlan) => {
      this.lastNow = plan.now;
      const at = usage.mark();
      try {
        return admitInTransaction(st, plan, mark, usage);
      } catch (err) {
        usage.rollback(at); // the admission is rolled back to its savepoint (or its whole transaction is)
        throw err;
      }
    };
    const prune = () => pruner.maybePrune(this.lastNow);
    const onError = (err: unknown) => this.logger?.error({ err }, 'embedded store: pruning failed');
    this.batcher = new GroupCommit(
      this.db,
      one,
      prune,
      onError,
      busyTimeoutMs,
      () => usage.write(),
      () => usage.clear(),
    );
    if (log) this.startSweeper();
  }

  /** Stop the sweeper and commit what is still queued (admissions and keeps). */
  stop(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.batcher?.drain();
  }

  private startSweeper(): void {
    const timeout = this.opts.reservationTimeoutMs ?? 0;
    const run = () => {
      try {
        this.sweep();
      } catch (err) {
        this.logger?.error({ err }, 'embedded store: sweeper failed');
      }
    };
    run();
    this.sweepTimer = setInterval(run, Math.min(10_000, Math.max(250, Math.floor(timeout / 4))));
    this.sweepTimer.unref();
  }

  /** Release admissions in flight longer than the reservation timeout (a killed process's); how many. */
  sweep(): number {
    const timeout = this.opts.reservationTimeoutMs;
    if (!this.inflight || timeout === undefined || !this.db.open) return 0;
    return this.inflight.sweep(this.st(), (this.opts.clock ?? systemClock).now() - timeout);
  }

  private admissions(): GroupCommit<AdmissionPlan, AdmissionResult> {
    if (!this.batcher) throw new Error('embedded store: migrate() was not called');
    return this.batcher;
  }

  private st(): HotStatements {
    if (!this.hot) throw new Error('embedded store: migrate() was not called');
    return this.hot;
  }

  private releaseMark(): ReleaseMark {
    if (!this.mark) throw new Error('embedded store: migrate() was not called');
    return this.mark;
  }

  /** Key cache lookups so far (for benchmarks and tests; see EmbeddedStore.keyCacheStats). */
  keyCacheStats(): { hits: number; misses: number } {
    return this.keyCache.stats;
  }

  async findKeyByHash(hash: string): Promise<KeyIdentity | null> {
    const st = this.st();
    const now = performance.now();
    const cached = this.keyCache.get(hash, now);
    if (cached !== undefined) return cached;
    let row: object | undefined;
    try {
      row = st.keyByHash.get(hash, hash) as object | undefined;
    } catch (err) {
      throw sqliteFault(err);
    }
    if (!row) return null;
    const identity = toKeyIdentity(row);
    this.keyCache.set(hash, identity, now);
    return identity;
  }

  async findWhitelistedAccount(address: string): Promise<Account | null> {
    const k = addressKey(address);
    if (!k) return null;
    const st = this.st();
    try {
      const near = st.whitelistNearest.get(k.family, k.hex) as
        { account_id: string; range_end: string } | undefined;
      if (!near) return null;
      const covered =
        near.range_end >= k.hex ||
        st.whitelistAccountCovers.get(near.account_id, k.family, k.hex, k.hex) !== undefined;
      const row = covered ? (st.accountById.get(near.account_id) as object | undefined) : undefined;
      return row ? toAccount(row) : null;
    } catch (err) {
      throw sqliteFault(err);
    }
  }

  async admit(plan: AdmissionPlan): Promise<AdmissionResult> {
    return this.admissions().submit(plan);
  }

  async release(ticket: Ticket): Promise<void> {
    const st = this.st();
    const undo = asEmbeddedUndo(ticket.undo);
    const mark = this.releaseMark();
    const units = ticket.units?.map((u) => ({ id: u.planId, undo: asEmbeddedUndo(u.undo) }));
    try {
      this.db
        .transaction(() => {
          // A plan of several units: the units not settled yet, then what they share (types.ts `Ticket.units`).
          if (units !== undefined) for (const u of units) releaseInTransaction(st, u.id, u.undo, mark);
          releaseInTransaction(st, ticket.planId, undo, mark);
        })
        .immediate();
    } catch (err) {
      throw sqliteFault(err);
    }
  }

  /**
   * Drop the admission's release mark (its in-flight row, or its admissions row without crash recovery) so a later
   * release is a no-op. Keeps ride in the next group commit's transaction (with the admissions of that turn, or
   * alone when none are pending). Admissions rows never kept are pruned after two days (prune.ts); in-flight rows
   * never kept are released by the sweeper.
   */
  keep(ticket: Ticket): Promise<void> {
    const mark = this.releaseMark();
    const id = ticket.planId;
    const units = ticket.units;
    if (units === undefined) return this.admissions().defer(() => void mark.remove(id));
    const ids = units.map((u) => u.planId);
    return this.admissions().defer(() => {
      for (const u of ids) mark.remove(u);
      mark.remove(id);
    });
  }

  async recordRefusal(subjects: string[], day: string): Promise<void> {
    const st = this.st();
    try {
      this.db
        .transaction(() => {
          for (const s of subjects) st.usageAdd.refused.run(day, s);
        })
        .immediate();
    } catch (err) {
      throw sqliteFault(err);
    }
  }
}

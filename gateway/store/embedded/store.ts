/**
 * The embedded store: SQLite through one better-sqlite3 connection. Admissions run as prepared statements in
 * synchronous IMMEDIATE transactions, grouped per event-loop turn (group-commit.ts) and committed before their promises
 * resolve; knex, on the same connection, runs the shared migrations. Every write is a synchronous transaction, so
 * there is one writer and nothing interleaves with an admission. One part per port (port-*.ts), composed here.
 */
import type Database from 'better-sqlite3';
import type { Clock } from '../../core/clock';
import { ComposedStore, type StoreParts } from '../compose';
import type { StoreLogger } from '../deps';
import { runMigrations } from '../migrations';
import type { Lifecycle } from '../ports';
import { Checkpointer, checkpointWarning } from './checkpointer';
import { sqliteFault } from './faults';
import { KeyCache } from './key-cache';
import { BUSY_TIMEOUT_MS, knexOnDatabase, openDatabase } from './open';
import { EmbeddedAccounts } from './port-accounts';
import { EmbeddedAdmission } from './port-admission';
import { EmbeddedBilling } from './port-billing';
import { EmbeddedKeys } from './port-keys';
import { EmbeddedMarkStore } from './port-marks';
import { EmbeddedConsoleStore } from './port-console';
import { EmbeddedNotificationStore } from './port-notifications';
import { EmbeddedAutoTopUps } from './auto-topup';
import { EmbeddedSecurity } from './security';
import { foldFirst } from './memory/fold-first';
import { MemoryAdmission, type MemoryOptions } from './memory/owner';
import { LeaseHolder, type LeaseHolderOptions } from './lease/holder';
import { foldHolderJournals } from './lease/orphans';
import type { LeaseParams } from '../../lease/lease';
import { Pruner } from './prune';

/** The embedded store's options (createStore passes them from the config). */
export interface EmbeddedOptions {
  /** Crash recovery: admissions neither kept nor released within it are released on start-up and periodically. */
  reservationTimeoutMs?: number;
  clock?: Clock;
  /** WAL checkpoints from a worker thread instead of inside a commit (default on for a file; checkpointer.ts). */
  backgroundCheckpoints?: boolean;
  /** Other processes write the same file (`workers`): admissions retry a locked file without blocking. */
  sharedByProcesses?: boolean;
  /**
   * Another process checkpoints this file (`workers`: the cluster primary, one checkpointer for all workers;
   * store/index.ts `checkpointFile`): no automatic checkpoint inside a commit and no checkpointer thread here.
   */
  checkpointedElsewhere?: boolean;
  /**
   * How admissions are decided (D33): 'memory' (this process owns the file: decided in memory, a journal per turn, a
   * fold every `foldEveryMs`; memory/owner.ts) or 'direct' (a transaction per turn; the default). Memory needs a file
   * written by this process alone: with `sharedByProcesses`, `checkpointedElsewhere` or ':memory:' it is direct.
   */
  admission?: 'memory' | 'direct';
  /** The memory owner's journal folder (default: the file's path + ".journal"). */
  journalDir?: string;
  /** The memory owner's fold interval (D34; default 1000 ms). */
  foldEveryMs?: number;
  /** The memory owner drops state unused this long (plan time), once folded (default 60,000 ms). */
  idleMs?: number;
  /**
   * With `sharedByProcesses` and `admission: 'memory'`: this process holds leases (lease/holder.ts) under this
   * name (default: `worker-` + GEOGATE_WORKER_SLOT, set by the cluster primary, else `worker-p` + the pid).
   */
  holderName?: string;
  /** D33's lease constants for a lease holder (default gateway/lease LEASE_DEFAULTS). */
  lease?: Partial<LeaseParams>;
}

/** Whether `opts` on `path` make this process a lease holder (D33 with several processes on the file). */
export function decidesWithLeases(path: string, opts: EmbeddedOptions): boolean {
  return opts.admission === 'memory' && path !== ':memory:' && opts.sharedByProcesses === true;
}

/** The lease holder's options from the store's. */
function holderOptions(path: string, opts: EmbeddedOptions): LeaseHolderOptions {
  const slot = process.env.GEOGATE_WORKER_SLOT;
  const name =
    opts.holderName ??
    (slot !== undefined && /^[0-9]+$/.test(slot) ? `worker-${slot}` : `worker-p${process.pid}`);
  return {
    name,
    journalDir: opts.journalDir ?? `${path}.journal`,
    ...(opts.foldEveryMs !== undefined ? { foldEveryMs: opts.foldEveryMs } : {}),
    ...(opts.lease !== undefined ? { lease: opts.lease } : {}),
    ...(opts.reservationTimeoutMs !== undefined ? { reservationTimeoutMs: opts.reservationTimeoutMs } : {}),
    ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
  };
}

/** Whether `opts` on `path` decide admissions in memory (EmbeddedOptions.admission). */
export function decidesInMemory(path: string, opts: EmbeddedOptions): boolean {
  return (
    opts.admission === 'memory' &&
    path !== ':memory:' &&
    opts.sharedByProcesses !== true &&
    opts.checkpointedElsewhere !== true
  );
}

/** The connection and the parts of one embedded store. */
interface Built {
  db: Database.Database;
  admission: EmbeddedAdmission;
  parts: StoreParts;
  /** Stop as kill -9 would (crash tests): nothing more written or folded, the connection closed. */
  abandon(): Promise<void>;
}

/** The memory owner's options from the store's. */
function memoryOptions(path: string, opts: EmbeddedOptions): MemoryOptions {
  return {
    journalDir: opts.journalDir ?? `${path}.journal`,
    ...(opts.foldEveryMs !== undefined ? { foldEveryMs: opts.foldEveryMs } : {}),
    ...(opts.idleMs !== undefined ? { idleMs: opts.idleMs } : {}),
    ...(opts.reservationTimeoutMs !== undefined ? { reservationTimeoutMs: opts.reservationTimeoutMs } : {}),
    ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
  };
}

/** Open the file and make one part per port; migrate() (the lifecycle part) prepares them. */
function build(path: string, logger: StoreLogger | undefined, opts: EmbeddedOptions): Built {
  const db = openDatabase(path);
  const knex = knexOnDatabase(db);
  const elsewhere = opts.checkpointedElsewhere === true;
  let checkpointer: Checkpointer | null = null;
  if (path !== ':memory:' && (elsewhere || opts.backgroundCheckpoints !== false)) {
    db.pragma('wal_autocheckpoint = 0');
    if (!elsewhere) checkpointer = new Checkpointer(path, checkpointWarning(logger));
  }
  const keyCache = new KeyCache();
  const owner = decidesInMemory(path, opts)
    ? new MemoryAdmission(db, keyCache, memoryOptions(path, opts), logger)
    : null;
  const holder = decidesWithLeases(path, opts)
    ? new LeaseHolder(db, keyCache, holderOptions(path, opts), logger)
    : null;
  const inMemory = owner ?? holder;
  // A key or an account changed through this store (everything but an admission's debit, whose balance the cached
  // identity does not decide on): forget the cached identities so the change is seen at once (and the memory
  // owner's state is read again).
  const changed = <T>(result: T): T => {
    keyCache.clear();
    inMemory?.invalidate();
    return result;
  };
  const admission = inMemory ?? new EmbeddedAdmission(db, keyCache, opts, logger);
  const marks = new EmbeddedMarkStore();
  // Other processes, or the checkpointer's WAL restarts, take the write lock: batches retry instead of blocking.
  const others = opts.sharedByProcesses === true || elsewhere || checkpointer !== null;
  const lifecycle: Lifecycle = {
    async migrate() {
      await runMigrations(knex);
      admission.start(new Pruner(db), others ? BUSY_TIMEOUT_MS : null);
      await owner?.open();
      // Alone on the file: what lease holders kept and never folded is charged, and no lease is held any more.
      if (owner) await foldHolderJournals(db, opts.journalDir ?? `${path}.journal`);
      await holder?.open();
      marks.start(db);
    },
    async close() {
      if (inMemory)
        await inMemory.close(); // folds what was kept
      else admission.stop(); // admissions and keeps still queued
      await checkpointer?.stop();
      checkpointer = null;
      await knex.destroy();
      if (db.open) db.close();
    },
    /** `{ sqlite }`: a trivial query answers. */
    async readiness() {
      try {
        db.prepare('SELECT 1').get();
        return { sqlite: true };
      } catch {
        return { sqlite: false };
      }
    },
  };
  const folded = <T extends object>(part: T): T => (inMemory ? foldFirst(part, inMemory) : part);
  const parts: StoreParts = {
    admission,
    accounts: folded(new EmbeddedAccounts(db, knex, changed)),
    keys: folded(new EmbeddedKeys(db, knex, changed)),
    billing: folded(new EmbeddedBilling(db, changed)),
    notifications: folded(new EmbeddedNotificationStore(db)),
    marks,
    console: folded(new EmbeddedConsoleStore(db, knex)),
    autoTopUp: new EmbeddedAutoTopUps(db),
    security: new EmbeddedSecurity(db),
    lifecycle,
  };
  const abandon = async (): Promise<void> => {
    inMemory?.abandon();
    await checkpointer?.stop();
    checkpointer = null;
    await knex.destroy();
    if (db.open) db.close();
  };
  return { db, admission, parts, abandon };
}

/** The Store on a SQLite file (or ":memory:"). Call migrate() before use (createStore does). */
export class EmbeddedStore extends ComposedStore {
  readonly db: Database.Database;
  private readonly admission: EmbeddedAdmission;
  /** Stop as kill -9 would: the memory owner's journal neither written nor folded any more, in-flight admissions
   * lost, the connection closed (crash tests; a later open folds the journal's tail). */
  readonly abandon: () => Promise<void>;

  /**
   * `opts.reservationTimeoutMs` turns on crash recovery (inflight.ts): admissions neither kept nor released within
   * it are released on start-up (migrate) and every quarter of it (at most 10 s), by `opts.clock`.
   */
  constructor(path: string, logger?: StoreLogger, opts: EmbeddedOptions = {}) {
    const built = build(path, logger, opts);
    super(built.parts, sqliteFault);
    this.db = built.db;
    this.admission = built.admission;
    this.abandon = built.abandon;
  }

  /** Release admissions in flight longer than the reservation timeout (a killed process's); how many. */
  sweep(): number {
    return this.admission.sweep();
  }

  /**
   * Key cache lookups so far. Not `identityCacheStats`: the metrics' label set of an embedded gateway stays as it
   * was (the integration metrics test pins it); this is for benchmarks and tests.
   */
  keyCacheStats(): { hits: number; misses: number } {
    return this.admission.keyCacheStats();
  }

  /** The memory owner (admission: 'memory'), or null on the direct path; for tests and benchmarks. */
  memoryOwner(): MemoryAdmission | null {
    return this.admission instanceof MemoryAdmission ? this.admission : null;
  }

  /** The lease holder (admission: 'memory' with sharedByProcesses), or null; for tests and benchmarks. */
  leaseHolder(): LeaseHolder | null {
    return this.admission instanceof LeaseHolder ? this.admission : null;
  }

  /** Fold what the memory owner or lease holder kept into SQLite now (a no-op on the direct path). */
  async foldNow(): Promise<void> {
    await (this.memoryOwner() ?? this.leaseHolder())?.foldNow();
  }
}

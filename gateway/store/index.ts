/** The store factory: the embedded store (SQLite) or the shared store (PostgreSQL + Redis, issue 4). */
import type { StoreDeps } from './deps';
import { Checkpointer, checkpointWarning } from './embedded/checkpointer';
import { EmbeddedStore } from './embedded/store';
import type { Store } from './ports';
import type { LeaseOptions } from './shared/lease/options';

export type StoreConfig =
  | {
      kind: 'embedded';
      path: string;
      /** Crash recovery (EmbeddedStore opts); only when answered admissions are kept. */
      reservationTimeoutMs?: number;
      /** Other processes (gateway workers) write the same file (EmbeddedStore opts). */
      sharedByProcesses?: boolean;
      /** Another process runs the file's checkpoints (`checkpointFile`, EmbeddedStore opts). */
      checkpointedElsewhere?: boolean;
      /** How admissions are decided (EmbeddedOptions.admission, D33): 'memory' or 'direct' (default). */
      admission?: 'memory' | 'direct';
      /** The memory owner's journal folder and fold interval (EmbeddedOptions). */
      journalDir?: string;
      foldEveryMs?: number;
    }
  | {
      kind: 'shared';
      postgres: string;
      redis: string;
      keyPrefix?: string;
      onStoreFailure?: 'closed' | 'open';
      /** Crash sweeper (SharedStoreOptions.reservationTimeoutMs); only when answered admissions are kept. */
      reservationTimeoutMs?: number;
      /** How often the ledger drain runs (SharedStoreOptions.drainIntervalMs; benchmarks drain by hand). */
      drainIntervalMs?: number;
      /** D33's credit leases (SharedStoreOptions.leases); absent or true: on (D33's defaults); false: off. */
      leases?: Partial<LeaseOptions> | boolean;
    };

/** Open the configured store and bring its schema up to date (parent folders of the SQLite file are created). */
export async function createStore(cfg: StoreConfig, deps: StoreDeps): Promise<Store> {
  if (cfg.kind === 'shared') {
    // Issue 4: PostgreSQL + Redis; connects, then runs the shared migrations (see docs/shared-state.md).
    const { openSharedStore } = await import('./shared');
    const shared = await openSharedStore({
      postgres: cfg.postgres,
      redis: cfg.redis,
      ...(cfg.keyPrefix !== undefined ? { keyPrefix: cfg.keyPrefix } : {}),
      ...(deps.logger ? { logger: deps.logger } : {}),
      clock: deps.clock,
      ...(cfg.reservationTimeoutMs !== undefined ? { reservationTimeoutMs: cfg.reservationTimeoutMs } : {}),
      ...(cfg.drainIntervalMs !== undefined ? { drainIntervalMs: cfg.drainIntervalMs } : {}),
      ...(cfg.leases !== undefined ? { leases: cfg.leases } : {}),
    });
    deps.logger?.info({ store: 'shared', cluster: shared.cluster }, 'store ready');
    return shared;
  }
  const store = new EmbeddedStore(cfg.path, deps.logger, {
    clock: deps.clock,
    ...(cfg.sharedByProcesses === true ? { sharedByProcesses: true } : {}),
    ...(cfg.checkpointedElsewhere === true ? { checkpointedElsewhere: true } : {}),
    ...(cfg.reservationTimeoutMs !== undefined ? { reservationTimeoutMs: cfg.reservationTimeoutMs } : {}),
    ...(cfg.admission !== undefined ? { admission: cfg.admission } : {}),
    ...(cfg.journalDir !== undefined ? { journalDir: cfg.journalDir } : {}),
    ...(cfg.foldEveryMs !== undefined ? { foldEveryMs: cfg.foldEveryMs } : {}),
  });
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  const admission = store.memoryOwner() ? 'memory' : 'direct';
  deps.logger?.info({ store: 'embedded', path: cfg.path, admission }, 'store ready');
  return store;
}

export { EmbeddedStore } from './embedded/store';
export { runMigrations, MIGRATIONS_TABLE } from './migrations';
export { StoreUnavailableError, isStoreUnavailable } from './faults';
export * from './types';
export type * from './ports';
export type { StoreDeps, StoreLogger } from './deps';

/**
 * `workers` on the embedded store: the one checkpointer of the file, run by the process that serves nothing (the
 * cluster primary) while every worker opens the store with `checkpointedElsewhere` (issue 12: a checkpointer thread
 * per worker made as many passes, fsyncs and WAL restarts on one file). Null for the shared store or no file.
 */
export function checkpointFile(cfg: StoreConfig, deps: StoreDeps): { stop(): Promise<void> } | null {
  if (cfg.kind !== 'embedded' || cfg.path === ':memory:') return null;
  return new Checkpointer(cfg.path, checkpointWarning(deps.logger));
}

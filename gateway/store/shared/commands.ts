/**
 * `geogate migrate` and `geogate reconcile` for the shared store, as functions the CLI calls with the config's
 * `store` section. Each opens its own store connection, does its job, closes, and returns text and an exit code.
 */
import { openSharedStore } from './open';
import { formatDrift, reconcile, type ReconcileReport } from './reconcile';
import { SharedStore, type SharedStoreOptions } from './store';

/** The config's `store` section of kind shared. */
export type SharedStoreSection = Pick<SharedStoreOptions, 'postgres' | 'redis' | 'keyPrefix'>;

function options(cfg: SharedStoreSection): SharedStoreOptions {
  return {
    postgres: cfg.postgres,
    redis: cfg.redis,
    ...(cfg.keyPrefix !== undefined ? { keyPrefix: cfg.keyPrefix } : {}),
  };
}

/** Run the shared migrations on PostgreSQL (idempotent; safe while instances run). */
export async function migrateCommand(cfg: SharedStoreSection): Promise<{ text: string; exitCode: number }> {
  const store = await SharedStore.open(options(cfg));
  try {
    await store.migrate();
    return { text: 'PostgreSQL schema is up to date', exitCode: 0 };
  } finally {
    await store.close();
  }
}

/** Drain and compare Redis with the ledger; exit code 1 when any drift persists. */
export async function reconcileCommand(
  cfg: SharedStoreSection,
): Promise<{ text: string; exitCode: number; report: ReconcileReport }> {
  const store = await openSharedStore(options(cfg));
  try {
    const report = await reconcile(store);
    return { text: formatDrift(report), exitCode: report.drifts.length === 0 ? 0 : 1, report };
  } finally {
    await store.close();
  }
}

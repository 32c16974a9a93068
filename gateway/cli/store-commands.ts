/**
 * `geogate migrate --config FILE` and `geogate reconcile --config FILE` (issue 4): they work on the store named in
 * the gateway's config file directly, not through the admin API, so they need no admin token.
 */
import { compileConfig, type CompiledStoreConfig } from '../config/compile';
import { ConfigError, loadConfigFile } from '../config/load';
import { systemClock } from '../core/clock';
import { createStore } from '../store';
import type { Lifecycle } from '../store/ports';

/** What a store command prints and the process exit code. */
export interface StoreCommandResult {
  text: string;
  exitCode: number;
}

/** The config file could not be used (exit code 2, like the gateway's own start). */
export class ConfigUnusable extends Error {}

/** The store section of a config file, loaded and validated as the gateway does (`${ENV}` substituted). */
export function storeSection(file: string, env: NodeJS.ProcessEnv): CompiledStoreConfig {
  try {
    return compileConfig(loadConfigFile(file, env), file).store;
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigUnusable(err.message);
    throw err;
  }
}

/** The shared store's connection settings (migrate/reconcile open their own connections). */
function sharedSection(s: Extract<CompiledStoreConfig, { kind: 'shared' }>) {
  return {
    postgres: s.postgres,
    redis: s.redis,
    ...(s.keyPrefix !== undefined ? { keyPrefix: s.keyPrefix } : {}),
  };
}

/** Bring the store's schema up to date (embedded: the SQLite migrations; shared: PostgreSQL's). */
export async function migrateStore(store: CompiledStoreConfig): Promise<StoreCommandResult> {
  if (store.kind === 'shared') {
    const { migrateCommand } = await import('../store/shared');
    return migrateCommand(sharedSection(store));
  }
  const opened: Lifecycle = await createStore(store, { clock: systemClock });
  await opened.close();
  return { text: `SQLite schema of ${store.path} is up to date`, exitCode: 0 };
}

/** Compare Redis with the PostgreSQL ledger (shared); the embedded store has a single source of truth. */
export async function reconcileStore(store: CompiledStoreConfig): Promise<StoreCommandResult> {
  if (store.kind === 'shared') {
    const { reconcileCommand } = await import('../store/shared');
    const { text, exitCode } = await reconcileCommand(sharedSection(store));
    return { text, exitCode };
  }
  return {
    text: `embedded store (${store.path}): nothing to reconcile; SQLite is the single source of truth`,
    exitCode: 0,
  };
}

/**
 * `geogate migrate --config FILE` and `geogate reconcile --config FILE` (issue 4): they work on the store named in
 * the gateway's config file directly, not through the admin API, so they need no admin token.
 */
import { compileConfig, type CompiledStoreConfig } from '../config/compile';
import { ConfigError, loadConfigFile } from '../config/load';
import { systemClock } from '../core/clock';
import { createStore } from '../store';
import type { Lifecycle } from '../store/ports';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../accounts/password';
import type { OperatorRole } from '../store/ports/console';
import { StoreConflict } from '../store/types';

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

/** An operator of the console to create (`geogate operators create`). */
export interface NewOperatorInput {
  name: string;
  role: OperatorRole;
  password: string;
}

/** Why an operator cannot be created from this input, or null. */
export function operatorInputProblem(input: NewOperatorInput): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/.test(input.name)) {
    return 'NAME: 1 to 64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';
  }
  if (input.role !== 'support' && input.role !== 'admin') return '--role must be support or admin';
  if (input.password.length < PASSWORD_MIN_LENGTH || input.password.length > PASSWORD_MAX_LENGTH) {
    return `the password (standard input) needs ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`;
  }
  return null;
}

/** Create a console operator on the store (its password scrypt-hashed); a taken name exits 1. */
export async function createOperatorOnStore(
  store: CompiledStoreConfig,
  input: NewOperatorInput,
): Promise<StoreCommandResult> {
  const opened = await createStore(store, { clock: systemClock });
  try {
    const op = await opened.createOperator(
      { name: input.name, role: input.role, passwordHash: await hashPassword(input.password) },
      systemClock.now(),
    );
    return { text: `operator ${op.name} (${op.role}) created: ${op.id}`, exitCode: 0 };
  } catch (err) {
    if (err instanceof StoreConflict && err.reason === 'email_taken') {
      return { text: `an operator named ${input.name.toLowerCase()} exists already`, exitCode: 1 };
    }
    throw err;
  } finally {
    await opened.close();
  }
}

/**
 * Reloading the config without a restart (SIGHUP, the admin API's POST /admin/reload): which fields a running
 * gateway can take from a new file, and what a reload answers.
 */
import type { CompiledConfig } from './compile';

/** What a reload did: applied, or not (the errors, each as the start-up would print it). */
export type ReloadOutcome = { applied: true } | { applied: false; errors: string[] };

/**
 * A reload was refused: these fields only take effect at start (listeners, store, process settings). The running
 * config stays.
 */
export class ReloadRefused extends Error {
  constructor(readonly fields: readonly string[]) {
    super(`these settings need a restart: ${fields.join(', ')}`);
    this.name = 'ReloadRefused';
  }
}

/** The fields of `next` that differ from `running` and need a restart (docs/operations.md, "Reload"). */
export function restartOnlyChanges(running: CompiledConfig, next: CompiledConfig): string[] {
  const changed: string[] = [];
  const differs = (a: unknown, b: unknown): boolean => JSON.stringify(a) !== JSON.stringify(b);
  if (running.rules.name !== next.rules.name) changed.push('policy');
  if (differs(running.listen, next.listen)) changed.push('listen');
  if (differs(running.admin, next.admin)) changed.push('admin');
  if (differs(running.store, next.store)) changed.push('store');
  if (running.onStoreFailure !== next.onStoreFailure) changed.push('onStoreFailure');
  if (differs(running.serverLimits, next.serverLimits)) changed.push('serverLimits');
  if (differs(running.drain, next.drain)) changed.push('drain');
  if (running.workers !== next.workers) changed.push('workers');
  if (running.keyPepper !== next.keyPepper) changed.push('keyPepper');
  if (differs(running.forwardAuth, next.forwardAuth)) changed.push('forwardAuth');
  if (running.logLevel !== next.logLevel || running.logFormat !== next.logFormat) changed.push('log');
  // The store's crash sweeper runs with the window it started with: a longer backend timeout would let it release
  // answers still on their way (D11).
  if (next.reservationTimeoutMs > running.reservationTimeoutMs) changed.push('backends.timeoutMs (longer)');
  const ports = (c: CompiledConfig) =>
    c.hosts
      .filter((h) => h.port !== null)
      .map((h) => `${h.label}:${h.port}`)
      .sort();
  if (differs(ports(running), ports(next))) changed.push('hosts[].port');
  return changed;
}

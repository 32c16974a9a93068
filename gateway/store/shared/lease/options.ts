/**
 * The shared store's lease constants (D33), configurable as `store.leases` (docs/shared-state.md): D33's lease
 * arithmetic (gateway/lease) plus the holder's cadence.
 */
import { LEASE_DEFAULTS, type LeaseParams } from '../../../lease/lease';

/** The holder's constants. */
export interface LeaseOptions extends LeaseParams {
  /** Kept units are posted, idle leases returned, every this many ms (D34: 250 ms on the shared store). */
  flushMs: number;
  /** A new grant is asked when a lease is down to this share of its last grant (D33: 20 %). */
  refreshAt: number;
  /** After the owner answered direct mode (A < 4H), no grant is asked for this long. */
  directBackoffMs: number;
  /** A slot member read from the owner is trusted this long without a flush confirming it. */
  viewMs: number;
  /**
   * Every this many ms the holder reclaims the expired leases of any account (a dead holder's, D33), so they return
   * within `ttlMs + reclaimMs` even when no script touches the account again; 0: only the scripts reclaim.
   */
  reclaimMs: number;
}

/** D33's defaults. */
export const LEASE_OPTION_DEFAULTS: LeaseOptions = {
  ...LEASE_DEFAULTS,
  flushMs: 250,
  refreshAt: 0.2,
  directBackoffMs: 250,
  viewMs: 1_000,
  reclaimMs: 1_000,
};

/** The defaults with `given` over them, checked (a bad value is a configuration error naming the key). */
export function leaseOptions(given: Partial<LeaseOptions>): LeaseOptions {
  const o = { ...LEASE_OPTION_DEFAULTS, ...given };
  for (const [k, v] of Object.entries(o)) {
    if (!(typeof v === 'number' && Number.isFinite(v) && v >= 0))
      throw new RangeError(`store.leases.${k} must be a number ≥ 0`);
  }
  if (!(o.stopMs < o.ttlMs)) throw new RangeError('store.leases.stopMs must be below store.leases.ttlMs');
  if (!(o.refreshAt <= 1)) throw new RangeError('store.leases.refreshAt must be at most 1');
  if (!(o.maxLease >= 1 && o.flushMs >= 1))
    throw new RangeError('store.leases.maxLease and flushMs must be ≥ 1');
  return o;
}

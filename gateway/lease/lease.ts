/**
 * Lease arithmetic of D33, pure: an owner (a counter-day's free units or an account's credit, in units) and holders
 * that spend leases of it in memory. A grant is `min(ask, available - leased)`; units are posted (charged) when kept
 * and voided when returned, so the owner never hands out more than it has: no free request beyond the allowance,
 * no charge beyond the balance, the balance never below zero, in any interleaving.
 */

/** D33's lease constants (configurable). */
export interface LeaseParams {
  /** Largest lease in units. */
  maxLease: number;
  /** A lease is this much of the holder's recent traffic. */
  windowMs: number;
  /** An idle lease is returned after this long without use. */
  idleReturnMs: number;
  /** The holder stops spending a lease this long after its grant ... */
  stopMs: number;
  /** ... and the owner reclaims it after this long, if its holder never came back. */
  ttlMs: number;
}

/** D33's defaults: 1000 units, half a second of traffic, 0.5 s idle return, stop at 9 s, expiry at 10 s. */
export const LEASE_DEFAULTS: LeaseParams = {
  maxLease: 1000,
  windowMs: 500,
  idleReturnMs: 500,
  stopMs: 9000,
  ttlMs: 10_000,
};

/** The owner's record: units not yet charged (`available`) and of those the units reserved by leases. */
export interface Owner {
  available: number;
  leased: number;
}

/** A holder's lease: `left` to spend, `inFlight` admitted, `unposted` kept but not yet posted to the owner. */
export interface Lease {
  /** Units the owner counts for this lease: always `left + inFlight + unposted`. */
  reserved: number;
  left: number;
  inFlight: number;
  unposted: number;
  grantedAt: number;
  usedAt: number;
}

/** A holder with no lease yet. */
export const NO_LEASE: Lease = { reserved: 0, left: 0, inFlight: 0, unposted: 0, grantedAt: 0, usedAt: 0 };

/** Units the owner can still grant (A). */
export function unleased(owner: Owner): number {
  return owner.available - owner.leased;
}

/** D33's lease size: `min(maxLease, ceil(window x rate), floor(A / 2H))`. */
export function leaseSize(
  a: number,
  holders: number,
  ratePerSec: number,
  p: LeaseParams = LEASE_DEFAULTS,
): number {
  const traffic = Math.ceil((ratePerSec * p.windowMs) / 1000);
  return Math.max(0, Math.min(p.maxLease, traffic, Math.floor(a / (2 * holders))));
}

/** Direct mode (D33): below `A < 4H` the owner decides each request itself. */
export function isDirect(a: number, holders: number): boolean {
  return a < 4 * holders;
}

/** The owner grants `min(ask, A)` units (one atomic owner step). */
export function grant(owner: Owner, ask: number): { owner: Owner; granted: number } {
  const granted = Math.max(0, Math.min(ask, unleased(owner)));
  return { owner: { available: owner.available, leased: owner.leased + granted }, granted };
}

/** Reserved units are charged: they leave the owner. */
export function post(owner: Owner, units: number): Owner {
  return { available: owner.available - units, leased: owner.leased - units };
}

/** Reserved units return to the owner uncharged. */
export function voidUnits(owner: Owner, units: number): Owner {
  return { available: owner.available, leased: owner.leased - units };
}

/**
 * Charges units the owner no longer holds reserved (a journal replayed after its lease was reclaimed): at most
 * what is unleased, the rest is written off, so the balance never goes below zero.
 */
export function postLate(owner: Owner, units: number): { owner: Owner; posted: number; writtenOff: number } {
  const posted = Math.max(0, Math.min(units, unleased(owner)));
  return {
    owner: { available: owner.available - posted, leased: owner.leased },
    posted,
    writtenOff: units - posted,
  };
}

/** The holder admits `units` from its lease, or null when too few are left or the lease is past `stopMs`. */
export function take(
  lease: Lease,
  units: number,
  now: number,
  p: LeaseParams = LEASE_DEFAULTS,
): Lease | null {
  if (lease.left < units || now - lease.grantedAt >= p.stopMs) return null;
  return { ...lease, left: lease.left - units, inFlight: lease.inFlight + units, usedAt: now };
}

/** An admitted request was answered (kept): its units wait for the next post. */
export function keep(lease: Lease, units: number): Lease {
  return { ...lease, inFlight: lease.inFlight - units, unposted: lease.unposted + units };
}

/** An admitted request failed (D11): its units return to the holder's lease, nothing reaches the owner. */
export function release(lease: Lease, units: number): Lease {
  return { ...lease, inFlight: lease.inFlight - units, left: lease.left + units };
}

/** The holder posts what was kept (the fold, D34). */
export function flush(owner: Owner, lease: Lease): { owner: Owner; lease: Lease } {
  return {
    owner: post(owner, lease.unposted),
    lease: { ...lease, reserved: lease.reserved - lease.unposted, unposted: 0 },
  };
}

/**
 * Returns what is left to the owner; in-flight and kept units stay reserved (carried into the next lease), since
 * kept units are posted only by the fold, which records the journal position with them (D34: exactly once).
 */
export function giveBack(owner: Owner, lease: Lease): { owner: Owner; lease: Lease } {
  return {
    owner: voidUnits(owner, lease.left),
    lease: { ...lease, reserved: lease.reserved - lease.left, left: 0 },
  };
}

/** Adds `granted` units to the holder's lease and restarts its clock. */
export function refill(lease: Lease, granted: number, now: number): Lease {
  return {
    ...lease,
    reserved: lease.reserved + granted,
    left: lease.left + granted,
    grantedAt: now,
    usedAt: now,
  };
}

/** Whether an unused lease is due back at the owner (D33: 0.5 s idle). */
export function idle(lease: Lease, now: number, p: LeaseParams = LEASE_DEFAULTS): boolean {
  return lease.left > 0 && now - lease.usedAt >= p.idleReturnMs;
}

/** Whether the owner may reclaim a lease whose holder did not come back (D33: 10 s). */
export function expired(lease: Lease, now: number, p: LeaseParams = LEASE_DEFAULTS): boolean {
  return lease.reserved > 0 && now - lease.grantedAt >= p.ttlMs;
}

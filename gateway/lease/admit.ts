/**
 * A holder's admission against one owner (D33), pure: spend the lease; on a miss give back what is left and ask the
 * owner for a lease of D33's size, or in direct mode (`A < 4H`) for exactly this request. A refusal only when the
 * owner has fewer unleased units than the request needs ("refused only after the owner says nothing is left").
 */
import {
  giveBack,
  grant,
  isDirect,
  leaseSize,
  LEASE_DEFAULTS,
  refill,
  take,
  unleased,
  type Lease,
  type LeaseParams,
  type Owner,
} from './lease';

/** How a request was admitted: from the holder's lease, or reserved at the owner for this request alone. */
export type Via = 'lease' | 'direct';

/** What a holder knows when it admits. */
export interface AdmitContext {
  holders: number;
  ratePerSec: number;
  now: number;
  params?: LeaseParams;
}

/** The owner and lease after an admission, and its outcome (`ownerHad`: the owner's unleased units on a refusal). */
export interface Admission {
  owner: Owner;
  lease: Lease;
  outcome: { admitted: true; via: Via } | { admitted: false; ownerHad: number };
}

/**
 * Admits `units` for a holder. A `direct` admission is reserved at the owner: the caller settles it there
 * (`post` when kept, `voidUnits` when released); a `lease` admission is settled in the lease (`keep`, `release`).
 */
export function admit(owner: Owner, lease: Lease, units: number, ctx: AdmitContext): Admission {
  const p = ctx.params ?? LEASE_DEFAULTS;
  const fromLease = take(lease, units, ctx.now, p);
  if (fromLease !== null) return { owner, lease: fromLease, outcome: { admitted: true, via: 'lease' } };
  const back = giveBack(owner, lease); // a lease miss: what is left (too little, or past stopMs) goes back first
  const a = unleased(back.owner);
  if (a < units) return { ...back, outcome: { admitted: false, ownerHad: a } };
  if (isDirect(a, ctx.holders)) {
    const reserved = grant(back.owner, units);
    return { owner: reserved.owner, lease: back.lease, outcome: { admitted: true, via: 'direct' } };
  }
  const g = grant(back.owner, Math.max(units, leaseSize(a, ctx.holders, ctx.ratePerSec, p)));
  const taken = take(refill(back.lease, g.granted, ctx.now), units, ctx.now, p);
  if (taken === null) throw new Error('lease arithmetic: a grant of at least the request could not be spent');
  return { owner: g.owner, lease: taken, outcome: { admitted: true, via: 'lease' } };
}

/**
 * The property test's two worlds. `Reference`: the simple truth, no leases: how many free and credit units are
 * used (admitted and not released, charged or about to be), served, and lost with a host. `System`: owners and
 * holders built from gateway/lease (leases, direct mode, idle return, expiry) with each holder's journal since
 * its last fold (gateway/journal/settle), as the gateway would run them.
 */
import type { AdmissionRecord } from '../../../gateway/journal/settle';
import { admit, type Via } from '../../../gateway/lease/admit';
import {
  flush,
  giveBack,
  NO_LEASE,
  post,
  voidUnits,
  type Lease,
  type Owner,
} from '../../../gateway/lease/lease';

/** The two owners of the model: rule set A's free allowance, then the account's credit. */
export type Pool = 'free' | 'credit';
export const POOLS: Pool[] = ['free', 'credit'];

/** What the reference model counts per pool. */
export interface Counts {
  /** Admitted and not released, not lost with a host: must never exceed the total. */
  used: number;
  /** Admitted minus released, lost included: what was served or is being served. */
  served: number;
  /** Kept or in flight on a host that was lost: answered but never charged (D34's bound). */
  lost: number;
}

/** The reference model. */
export interface Reference {
  total: Record<Pool, number>;
  counts: Record<Pool, Counts>;
}

/** An admitted, unsettled request. */
export interface Req {
  id: string;
  holder: number;
  pool: Pool;
  via: Via;
  units: number;
}

/** A gateway process holding leases on both owners. */
export interface Holder {
  leases: Record<Pool, Lease>;
  state: 'up' | 'lost' | 'reclaimed';
  /** The lease-settled records since its last fold (direct requests are settled at the owner). */
  journal: AdmissionRecord[];
  ratePerSec: number;
}

/** The system under test. */
export interface System {
  now: number;
  owners: Record<Pool, Owner>;
  holders: Holder[];
  reqs: Req[];
  /** The credit ledger: top-ups positive, posted charges negative (D35: balance = sum(ledger)). */
  ledger: number[];
  nextId: number;
  /** Every refusal: the owners' unleased units when it was decided. */
  refusals: { units: number; freeHad: number; creditHad: number }[];
}

/** A fresh pair: `allowance` free units, `credit` units of credit, `holders` processes. */
export function start(allowance: number, credit: number, holders: number): { ref: Reference; sys: System } {
  const counts = (): Counts => ({ used: 0, served: 0, lost: 0 });
  const ref = { total: { free: allowance, credit }, counts: { free: counts(), credit: counts() } };
  const holder = (): Holder => ({
    leases: { free: NO_LEASE, credit: NO_LEASE },
    state: 'up',
    journal: [],
    ratePerSec: 100,
  });
  const sys: System = {
    now: 1_000_000,
    owners: { free: { available: allowance, leased: 0 }, credit: { available: credit, leased: 0 } },
    holders: Array.from({ length: holders }, holder),
    reqs: [],
    ledger: [credit],
    nextId: 0,
    refusals: [],
  };
  return { ref, sys };
}

/** A request of `units` at holder `h`: free if the allowance owner has units, else billed, else refused. */
export function request(ref: Reference, sys: System, h: number, units: number): Req | undefined {
  const holder = sys.holders[h];
  if (holder === undefined || holder.state !== 'up') return undefined;
  const had: Record<Pool, number> = { free: 0, credit: 0 };
  for (const pool of POOLS) {
    const ctx = { holders: sys.holders.length, ratePerSec: holder.ratePerSec, now: sys.now };
    const a = admit(sys.owners[pool], holder.leases[pool], units, ctx);
    sys.owners[pool] = a.owner;
    holder.leases[pool] = a.lease;
    if (!a.outcome.admitted) {
      had[pool] = a.outcome.ownerHad;
      continue;
    }
    const req: Req = { id: `r${sys.nextId++}`, holder: h, pool, via: a.outcome.via, units };
    sys.reqs.push(req);
    ref.counts[pool].used += units;
    ref.counts[pool].served += units;
    if (req.via === 'lease') holder.journal.push({ t: 'a', ...charge(req, sys.now) });
    return req;
  }
  sys.refusals.push({ units, freeHad: had.free, creditHad: had.credit });
  return undefined;
}

/** Settles an in-flight request: kept (charged) or released (D11). */
export function settleReq(ref: Reference, sys: System, req: Req, kept: boolean): void {
  sys.reqs.splice(sys.reqs.indexOf(req), 1);
  const holder = sys.holders[req.holder];
  if (holder === undefined) return;
  if (!kept) {
    ref.counts[req.pool].used -= req.units;
    ref.counts[req.pool].served -= req.units;
  }
  if (req.via === 'direct') {
    sys.owners[req.pool] = kept
      ? post(sys.owners[req.pool], req.units)
      : voidUnits(sys.owners[req.pool], req.units);
    if (kept && req.pool === 'credit') sys.ledger.push(-req.units);
    return;
  }
  const lease = holder.leases[req.pool];
  const inFlight = lease.inFlight - req.units;
  holder.leases[req.pool] = kept
    ? { ...lease, inFlight, unposted: lease.unposted + req.units }
    : { ...lease, inFlight, left: lease.left + req.units };
  holder.journal.push(kept ? { t: 'k', ...charge(req, sys.now) } : { t: 'r', id: req.id });
}

/** The holder's fold: posts what was kept, empties its journal. */
export function fold(sys: System, h: number): void {
  const holder = sys.holders[h];
  if (holder === undefined || holder.state !== 'up') return;
  for (const pool of POOLS) {
    const f = flush(sys.owners[pool], holder.leases[pool]);
    if (pool === 'credit' && holder.leases[pool].unposted > 0) sys.ledger.push(-holder.leases[pool].unposted);
    sys.owners[pool] = f.owner;
    holder.leases[pool] = f.lease;
  }
  holder.journal = [];
}

/** Returns the unused part of every lease of a holder (idle return, or a revocation voiding leases). */
export function returnLeases(sys: System, h: number): void {
  const holder = sys.holders[h];
  if (holder === undefined || holder.state !== 'up') return;
  fold(sys, h);
  for (const pool of POOLS) {
    const g = giveBack(sys.owners[pool], holder.leases[pool]);
    sys.owners[pool] = g.owner;
    holder.leases[pool] = g.lease;
  }
}

function charge(
  req: Req,
  at: number,
): { id: string; account: string; key: string; units: number; amount: number; at: number } {
  return {
    id: req.id,
    account: 'acc',
    key: req.pool,
    units: req.units,
    amount: req.pool === 'credit' ? req.units : 0,
    at,
  };
}

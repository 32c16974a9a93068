/**
 * Crashes and time in the lease model: a kill -9 with a replay of the holder's journal (exact), a lost host whose
 * leases the owner reclaims at expiry (D34's bound: its kept units stay uncharged unless it comes back and
 * late-posts them), idle return, top-ups and revocation.
 */
import { settle, Settler } from '../../../gateway/journal/settle';
import { expired, idle, NO_LEASE, post, postLate, voidUnits } from '../../../gateway/lease/lease';
import { fold, returnLeases, POOLS, type Reference, type System } from './model';

/** The shared store's fold interval (D34); a longer tick folds every live holder. */
const FOLD_MS = 250;

/** kill -9 and restart before expiry: the journal says what was kept (posted) and what was in flight (released). */
export function crash(ref: Reference, sys: System, h: number): void {
  const holder = sys.holders[h];
  if (holder === undefined || holder.state !== 'up') return;
  const settler = new Settler();
  const replay = settler.add(holder.journal);
  const mine = sys.reqs.filter((r) => r.holder === h);
  const inFlight = new Set(mine.map((r) => r.id));
  for (const a of settler.unsettled())
    if (!inFlight.has(a.id)) throw new Error(`replay released ${a.id}, not in flight`);
  for (const pool of POOLS) {
    const lease = holder.leases[pool];
    const kept = replay.kept.filter((k) => k.key === pool).reduce((s, k) => s + k.units, 0);
    if (kept !== lease.unposted)
      throw new Error(`${pool}: the journal kept ${kept}, memory had ${lease.unposted}`);
    sys.owners[pool] = voidUnits(post(sys.owners[pool], kept), lease.reserved - kept);
    if (pool === 'credit' && kept > 0) sys.ledger.push(-kept);
    holder.leases[pool] = NO_LEASE;
  }
  for (const r of mine) {
    if (r.via === 'direct') sys.owners[r.pool] = voidUnits(sys.owners[r.pool], r.units); // the owner's sweep
    ref.counts[r.pool].used -= r.units;
    ref.counts[r.pool].served -= r.units;
  }
  sys.reqs = sys.reqs.filter((r) => r.holder !== h);
  holder.journal = [];
}

/** A host is lost: its in-flight requests are released, what it kept but never posted is served uncharged. */
export function lose(ref: Reference, sys: System, h: number): void {
  const holder = sys.holders[h];
  if (holder === undefined || holder.state !== 'up') return;
  holder.state = 'lost';
  for (const r of sys.reqs.filter((q) => q.holder === h)) {
    if (r.via === 'direct') sys.owners[r.pool] = voidUnits(sys.owners[r.pool], r.units);
    ref.counts[r.pool].used -= r.units;
    ref.counts[r.pool].served -= r.units;
  }
  sys.reqs = sys.reqs.filter((r) => r.holder !== h);
  for (const pool of POOLS) {
    const unposted = holder.leases[pool].unposted;
    ref.counts[pool].used -= unposted;
    ref.counts[pool].lost += unposted;
  }
}

/** A lost host comes back and replays its journal: exact before expiry, a late post (never below zero) after. */
export function comeBack(ref: Reference, sys: System, h: number): void {
  const holder = sys.holders[h];
  if (holder === undefined || holder.state === 'up') return;
  const kept = settle(holder.journal, true).kept;
  for (const pool of POOLS) {
    const units = kept.filter((k) => k.key === pool).reduce((s, k) => s + k.units, 0);
    let posted = units;
    if (holder.state === 'lost') {
      const lease = holder.leases[pool];
      sys.owners[pool] = voidUnits(post(sys.owners[pool], units), lease.reserved - units);
    } else {
      const late = postLate(sys.owners[pool], units);
      sys.owners[pool] = late.owner;
      posted = late.posted;
    }
    if (pool === 'credit' && posted > 0) sys.ledger.push(-posted);
    ref.counts[pool].used += posted;
    ref.counts[pool].lost -= posted;
    holder.leases[pool] = NO_LEASE;
  }
  holder.journal = [];
  holder.state = 'up';
}

/** Time passes: a fold at least every 250 ms, idle leases go back (0.5 s), lost hosts' leases expire (10 s). */
export function tick(sys: System, ms: number): void {
  sys.now += ms;
  for (const [h, holder] of sys.holders.entries()) {
    if (holder.state === 'up' && ms >= FOLD_MS) fold(sys, h);
    if (holder.state === 'up' && POOLS.some((p) => idle(holder.leases[p], sys.now))) returnLeases(sys, h);
    if (
      holder.state !== 'lost' ||
      !POOLS.every((p) => expired(holder.leases[p], sys.now) || holder.leases[p].reserved === 0)
    )
      continue;
    for (const pool of POOLS) sys.owners[pool] = voidUnits(sys.owners[pool], holder.leases[pool].reserved);
    holder.state = 'reclaimed';
  }
}

/** A top-up of the credit (one ledger row). */
export function topUp(ref: Reference, sys: System, units: number): void {
  const o = sys.owners.credit;
  sys.owners.credit = { available: o.available + units, leased: o.leased };
  sys.ledger.push(units);
  ref.total.credit += units;
}

/**
 * The admission step decided in memory (ports/admission.ts `admit` states the rules; the direct path is
 * ../admission.ts): slots, then the free allowance, then the overflow, all from the owner's state, without a store
 * round trip. An admission becomes a reservation (the in-flight part of each entry it uses); a refusal changes
 * nothing (D10).
 */
import { tightestQuota } from '../../quota';
import { freesAt } from '../../slot-view';
import type { AdmissionPlan, AdmissionResult, CounterSpec, Ticket } from '../../types';
import { freeUnits, unitId, unitsOf } from '../../units';
import type { Expired, Settleable } from './settle';
import {
  applyChange,
  type BalanceEntry,
  type CounterEntry,
  type OwnerState,
  type ScopeEntry,
  type SlotChange,
} from './state';

/** A slot change of an admission, with its set. */
export interface HeldSlot {
  scope: string;
  entry: ScopeEntry;
  change: SlotChange;
}

export type { Expired };

/** What one admission (or one unit of a plan) holds in the owner's state until it is kept or released. */
export type Reservation = Settleable<CounterEntry, BalanceEntry, HeldSlot>;

/** The memory owner's Ticket.undo: the reservation lives in the owner's in-flight map, found by the plan id. */
export const MEMORY_UNDO = Object.freeze({ v: 'memory' as const });

type Refusal = Extract<AdmissionResult, { admitted: false }>;
type SlotDecision =
  | { ok: true; held: HeldSlot[]; expired: Expired[] }
  | { ok: false; code: Refusal['code']; nextSlotFreeAt: number };
const NONE: never[] = [];

/** Check every SlotSpec in order against the owner's sets; the first refusal wins (D9). Changes nothing. */
function decideSlots(state: OwnerState, plan: AdmissionPlan): SlotDecision {
  if (plan.slots.length === 0) return { ok: true, held: NONE, expired: NONE };
  const held: HeldSlot[] = [];
  const expired: Expired[] = [];
  const now = plan.now;
  for (const spec of plan.slots) {
    const entry = state.scope(spec.scope, now);
    let live = 0;
    let earliest = Infinity;
    let mine: { first: number; last: number } | undefined;
    for (const [member, e] of entry.members) {
      const frees = freesAt(spec.mode, spec.windowMs, e.first, e.last);
      if (frees > now) {
        live += 1;
        if (frees < earliest) earliest = frees;
        if (member === spec.member) mine = e;
      } else if (member !== spec.member) expired.push([spec.scope, member, e.first, e.last]);
    }
    let change: SlotChange;
    if (mine !== undefined) {
      change = {
        op: 'touch',
        member: spec.member,
        at: Math.max(now, mine.last),
        prev: mine.last,
        first: mine.first,
      };
    } else if (live < spec.capacity) change = { op: 'add', member: spec.member, at: now };
    else return { ok: false, code: spec.refuse, nextSlotFreeAt: earliest };
    held.push({ scope: spec.scope, entry, change });
  }
  return { ok: true, held, expired };
}

/** Apply an admitted request's slot decision to memory (the changes are in flight until kept or released). */
function applySlots(state: OwnerState, d: Extract<SlotDecision, { ok: true }>): void {
  for (const [scope, member] of d.expired) state.scopes.get(scope)?.members.delete(member);
  for (const h of d.held) {
    applyChange(h.entry.members, h.change);
    h.entry.inflight.add(h.change);
  }
}

function priceOf(plan: AdmissionPlan, price: number): number {
  if (!Number.isSafeInteger(price) || price <= 0) {
    throw new RangeError(`admission plan ${plan.id}: price must be a positive safe integer`);
  }
  return price;
}

function balanceOf(state: OwnerState, plan: AdmissionPlan, accountId: string): BalanceEntry {
  const b = state.balance(accountId, plan.now);
  if (b === null) throw new Error(`admission plan ${plan.id}: unknown account ${accountId}`);
  return b;
}

function reservation(plan: AdmissionPlan, id: string, slots: HeldSlot[], expired: Expired[]): Reservation {
  return {
    id,
    day: plan.day,
    counters: NONE,
    counterIds: NONE,
    balance: null,
    accountId: null,
    amount: 0,
    keyId: plan.keyId,
    at: plan.now,
    usage: plan.usage,
    billed: false,
    slots,
    expired,
  };
}

/**
 * Decide `plan` from memory; an admission's reservations are added to `inflight` (the plan's, and one per unit).
 * Throws, like the direct path, on a malformed plan, an unknown account, or a plan id already in flight.
 */
export function decide(
  state: OwnerState,
  plan: AdmissionPlan,
  inflight: Map<string, Reservation>,
): AdmissionResult {
  if (!Number.isSafeInteger(plan.now) || typeof plan.day !== 'string' || typeof plan.id !== 'string') {
    throw new TypeError('admission plan: id and day must be strings and now an integer (epoch ms)');
  }
  if (inflight.has(plan.id))
    throw new Error(`admission plan ${plan.id} was already admitted (plan ids must be unique)`);
  const n = unitsOf(plan);
  const slots = decideSlots(state, plan);
  const counters =
    plan.free.length === 0
      ? (NONE as CounterEntry[])
      : plan.free.map((c) => state.counter(plan.day, c.id, plan.now));
  const used = counters.map((c) => c.base + c.pending + c.inflight);
  const refuse = (code: Refusal['code']): Refusal => ({
    admitted: false,
    code,
    quota: quotaOf(plan.free, used, 0),
  });
  if (!slots.ok) return { ...refuse(slots.code), nextSlotFreeAt: slots.nextSlotFreeAt };
  if (plan.units !== undefined && n !== 1)
    return decideUnits(state, plan, n, slots, counters, used, inflight);

  const isFree = plan.free.every((c, i) => (used[i] ?? 0) < c.limit);
  const res = reservation(plan, plan.id, slots.held, slots.expired);
  if (!isFree) {
    const overflow = plan.overflow;
    if (overflow.kind === 'refuse') return refuse(overflow.code);
    if (overflow.kind === 'bill') {
      const price = priceOf(plan, overflow.price);
      const b = balanceOf(state, plan, overflow.accountId);
      if (b.base - b.pending - b.inflight < price) return refuse(overflow.refuse);
      b.inflight += price;
      res.balance = b;
      res.accountId = overflow.accountId;
      res.amount = price;
      res.billed = true;
    }
  } else if (counters.length > 0) {
    for (const c of counters) c.inflight += 1;
    res.counters = counters;
    res.counterIds = plan.free.map((c) => c.id);
  }
  applySlots(state, slots);
  inflight.set(plan.id, res);
  return {
    admitted: true,
    billed: res.billed,
    charged: res.amount,
    quota: quotaOf(plan.free, used, isFree ? 1 : 0),
    ticket: { planId: plan.id, undo: MEMORY_UNDO },
  };
}

/** A plan of `n` units: decided before anything changes, so a refusal of any unit changes nothing (D10). */
function decideUnits(
  state: OwnerState,
  plan: AdmissionPlan,
  n: number,
  slots: Extract<SlotDecision, { ok: true }>,
  counters: CounterEntry[],
  used: number[],
  inflight: Map<string, Reservation>,
): AdmissionResult {
  const refuse = (code: Refusal['code']): Refusal => ({
    admitted: false,
    code,
    quota: quotaOf(plan.free, used, 0),
  });
  const free = freeUnits(plan.free, used, n);
  const overflow = plan.overflow;
  let price = 0;
  let balance: BalanceEntry | null = null;
  if (free < n) {
    if (overflow.kind === 'refuse') return refuse(overflow.code);
    if (overflow.kind === 'bill') {
      price = priceOf(plan, overflow.price);
      const total = price * (n - free);
      if (!Number.isSafeInteger(total)) return refuse(overflow.refuse);
      balance = balanceOf(state, plan, overflow.accountId);
      if (balance.base - balance.pending - balance.inflight < total) return refuse(overflow.refuse);
    }
  }
  applySlots(state, slots);
  const ids = plan.free.map((c) => c.id);
  const units: Ticket[] = [];
  for (let i = 0; i < n; i++) {
    const id = unitId(plan.id, i);
    const res = reservation(plan, id, NONE, NONE);
    if (i < free) {
      for (const c of counters) c.inflight += 1;
      res.counters = counters;
      res.counterIds = ids;
    } else if (balance !== null && overflow.kind === 'bill') {
      balance.inflight += price;
      res.balance = balance;
      res.accountId = overflow.accountId;
      res.amount = price;
      res.billed = true;
    }
    inflight.set(id, res);
    units.push({ planId: id, undo: MEMORY_UNDO });
  }
  const shared = reservation(plan, plan.id, slots.held, slots.expired);
  shared.usage = NONE;
  inflight.set(plan.id, shared);
  const charged = price * (n - free);
  return {
    admitted: true,
    billed: charged > 0,
    charged,
    quota: quotaOf(plan.free, used, free),
    ticket: { planId: plan.id, undo: MEMORY_UNDO, units },
  };
}

/** Quota (types.ts): the tightest counter, its used as after this request (`added` free units). */
function quotaOf(
  free: readonly CounterSpec[],
  used: readonly number[],
  added: number,
): AdmissionResult['quota'] {
  if (free.length === 0) return null;
  return tightestQuota(
    free,
    used.map((u) => u + added),
  );
}

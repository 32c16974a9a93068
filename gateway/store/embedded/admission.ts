/**
 * The admission step of the embedded store (types.ts `Store.admit` documents the rules): synchronous functions run
 * inside one better-sqlite3 transaction, so the decision and its writes are atomic and committed on return.
 */
import { hourStartOf } from '../charge-hour';
import { tightestQuota } from '../quota';
import type { AdmissionPlan, AdmissionResult, CounterSpec, Ticket } from '../types';
import { freeUnits, unitId, unitsOf } from '../units';
import type { HotStatements } from './hot-statements';
import { addHourlyCharge } from './ledger-hour';
import { applySlots, decideSlots, undoSlots, type SlotChange } from './slots';

/**
 * A charge as its release takes it back: from the hourly row of (account, key, hour) (D35), or, for an admission made
 * before migration 009 (no `hourStart`, e.g. replayed from an older in-flight log), from its own row.
 */
export interface EmbeddedCharge {
  accountId: string;
  amount: number;
  keyId?: string | null;
  hourStart?: number;
}

/** The embedded store's Ticket.undo: exactly what the admission changed (JSON-serialisable). */
export interface EmbeddedUndo {
  v: 1;
  day: string;
  counters: string[];
  charge: EmbeddedCharge | null;
  slots: SlotChange[];
  usage: { column: 'free' | 'billed'; subjects: string[] };
}

type Refusal = Extract<AdmissionResult, { admitted: false }>;

/**
 * Where an admission's "not yet released" mark lives: a row of `admissions`, or, when crash recovery is on, the
 * admission's row in the in-flight log (inflight.ts), which then is the only row an admission adds and a keep deletes.
 */
export interface ReleaseMark {
  /** Whether `planId` is admitted and neither kept nor released. */
  has(planId: string): boolean;
  add(planId: string, admittedAt: number, undo: EmbeddedUndo): void;
  /** Drop the mark; whether it was there (a release undoes only then). */
  remove(planId: string): boolean;
}

/** Where an admission's usage additions go: folded into its batch's, written before the COMMIT (usage-fold.ts). */
export interface UsageSink {
  add(day: string, subject: string, column: 'free' | 'billed'): void;
}

/** The release mark as a row of `admissions` (no crash recovery: the undo stays in the ticket only). */
export function admissionsMark(st: HotStatements): ReleaseMark {
  return {
    has: (planId) => st.admissionExists.get(planId) !== undefined,
    add: (planId, admittedAt) => void st.admissionInsert.run(planId, admittedAt),
    remove: (planId) => st.admissionDelete.run(planId).changes > 0,
  };
}

/** Quota (types.ts): the tightest counter, its used as after this request (`added`: 1 when free, else 0). */
function quotaOf(
  free: readonly CounterSpec[],
  used: readonly number[],
  added: number,
): AdmissionResult['quota'] {
  return tightestQuota(
    free,
    used.map((u) => u + added),
  );
}

/** Execute `plan`; call inside a write transaction. Refusals write nothing (D10). */
export function admitInTransaction(
  st: HotStatements,
  plan: AdmissionPlan,
  mark: ReleaseMark,
  usage: UsageSink,
): AdmissionResult {
  if (!Number.isSafeInteger(plan.now) || typeof plan.day !== 'string' || typeof plan.id !== 'string') {
    throw new TypeError('admission plan: id and day must be strings and now an integer (epoch ms)');
  }
  if (mark.has(plan.id)) {
    throw new Error(`admission plan ${plan.id} was already admitted (plan ids must be unique)`);
  }
  if (plan.units !== undefined && unitsOf(plan) !== 1)
    return admitUnits(st, plan, unitsOf(plan), mark, usage);
  const slots = decideSlots(st, plan.slots, plan.now);
  const used = plan.free.map((c) => (st.counterGet.get(plan.day, c.id) as number | undefined) ?? 0);
  const refuse = (code: Refusal['code']): Refusal => ({
    admitted: false,
    code,
    quota: quotaOf(plan.free, used, 0),
  });
  if (!slots.ok) return { ...refuse(slots.code), nextSlotFreeAt: slots.nextSlotFreeAt };

  const isFree = plan.free.every((c, i) => (used[i] ?? 0) < c.limit);
  let charge: EmbeddedUndo['charge'] = null;
  if (!isFree) {
    const overflow = plan.overflow;
    if (overflow.kind === 'refuse') return refuse(overflow.code);
    if (overflow.kind === 'bill') {
      if (!Number.isSafeInteger(overflow.price) || overflow.price <= 0) {
        throw new RangeError(`admission plan ${plan.id}: price must be a positive safe integer`);
      }
      if (st.debit.run(overflow.price, overflow.accountId, overflow.price).changes !== 1) {
        if (st.accountExists.get(overflow.accountId) === undefined) {
          throw new Error(`admission plan ${plan.id}: unknown account ${overflow.accountId}`);
        }
        return refuse(overflow.refuse);
      }
      const hourStart = hourStartOf(plan.now);
      addHourlyCharge(st, overflow.accountId, plan.keyId, hourStart, 1, overflow.price);
      charge = { accountId: overflow.accountId, amount: overflow.price, keyId: plan.keyId, hourStart };
    }
  }
  if (isFree) for (const c of plan.free) st.counterIncrement.run(plan.day, c.id);
  applySlots(st, slots);
  const column = charge ? 'billed' : 'free';
  for (const subject of plan.usage) usage.add(plan.day, subject, column);
  const undo: EmbeddedUndo = {
    v: 1,
    day: plan.day,
    counters: isFree ? plan.free.map((c) => c.id) : [],
    charge,
    slots: slots.changes,
    usage: { column, subjects: [...plan.usage] },
  };
  mark.add(plan.id, plan.now, undo);
  return {
    admitted: true,
    billed: charge !== null,
    charged: charge?.amount ?? 0,
    quota: quotaOf(plan.free, used, isFree ? 1 : 0),
    ticket: { planId: plan.id, undo },
  };
}

/** The price of one billed unit, checked (a bad price is a bug, not a refusal). */
function priceOf(
  plan: AdmissionPlan,
  overflow: Extract<AdmissionPlan['overflow'], { kind: 'bill' }>,
): number {
  if (!Number.isSafeInteger(overflow.price) || overflow.price <= 0) {
    throw new RangeError(`admission plan ${plan.id}: price must be a positive safe integer`);
  }
  return overflow.price;
}

/**
 * A plan of `n` units (types.ts `Store.admit`), decided before anything is written, so a refusal of any unit writes
 * nothing (D10): the slots once, then the free units (units.ts), then the rest by the overflow, billed in one debit.
 * Each unit gets its own release mark and usage, the billed units one addition to their hour's ledger row (D35); the
 * plan's mark holds the slot changes.
 */
function admitUnits(
  st: HotStatements,
  plan: AdmissionPlan,
  n: number,
  mark: ReleaseMark,
  usage: UsageSink,
): AdmissionResult {
  const slots = decideSlots(st, plan.slots, plan.now);
  const used = plan.free.map((c) => (st.counterGet.get(plan.day, c.id) as number | undefined) ?? 0);
  const refuse = (code: Refusal['code']): Refusal => ({
    admitted: false,
    code,
    quota: quotaOf(plan.free, used, 0),
  });
  if (!slots.ok) return { ...refuse(slots.code), nextSlotFreeAt: slots.nextSlotFreeAt };
  const free = freeUnits(plan.free, used, n);
  const overflow = plan.overflow;
  let price = 0;
  if (free < n) {
    if (overflow.kind === 'refuse') return refuse(overflow.code);
    if (overflow.kind === 'bill') {
      price = priceOf(plan, overflow);
      const total = price * (n - free);
      if (!Number.isSafeInteger(total)) return refuse(overflow.refuse);
      if (st.debit.run(total, overflow.accountId, total).changes !== 1) {
        if (st.accountExists.get(overflow.accountId) === undefined) {
          throw new Error(`admission plan ${plan.id}: unknown account ${overflow.accountId}`);
        }
        return refuse(overflow.refuse);
      }
    }
  }
  for (const c of plan.free) for (let i = 0; i < free; i++) st.counterIncrement.run(plan.day, c.id);
  applySlots(st, slots);
  const hourStart = hourStartOf(plan.now);
  if (price > 0 && overflow.kind === 'bill')
    addHourlyCharge(st, overflow.accountId, plan.keyId, hourStart, n - free, price * (n - free));
  const units: Ticket[] = [];
  for (let i = 0; i < n; i++) {
    const id = unitId(plan.id, i);
    const billed = i >= free && price > 0 && overflow.kind === 'bill';
    const charge = billed
      ? { accountId: overflow.accountId, amount: price, keyId: plan.keyId, hourStart }
      : null;
    const column = charge ? 'billed' : 'free';
    for (const subject of plan.usage) usage.add(plan.day, subject, column);
    const undo: EmbeddedUndo = {
      v: 1,
      day: plan.day,
      counters: i < free ? plan.free.map((c) => c.id) : [],
      charge,
      slots: [],
      usage: { column, subjects: [...plan.usage] },
    };
    mark.add(id, plan.now, undo);
    units.push({ planId: id, undo });
  }
  const shared: EmbeddedUndo = {
    v: 1,
    day: plan.day,
    counters: [],
    charge: null,
    slots: slots.changes,
    usage: { column: 'free', subjects: [] },
  };
  mark.add(plan.id, plan.now, shared);
  const charged = price * (n - free);
  return {
    admitted: true,
    billed: charged > 0,
    charged,
    quota: quotaOf(plan.free, used, free),
    ticket: { planId: plan.id, undo: shared, units },
  };
}

/** Undo one admission exactly, once (its release mark says it is not yet released). */
export function releaseInTransaction(
  st: HotStatements,
  planId: string,
  undo: EmbeddedUndo,
  mark: ReleaseMark,
): void {
  if (!mark.remove(planId)) return;
  for (const id of undo.counters) st.counterDecrement.run(undo.day, id);
  const charge = undo.charge;
  if (charge) {
    st.refund.run(charge.amount, charge.accountId);
    if (charge.hourStart === undefined) st.ledgerDeleteCharge.run(charge.accountId, planId);
    else addHourlyCharge(st, charge.accountId, charge.keyId ?? null, charge.hourStart, -1, -charge.amount);
  }
  undoSlots(st, undo.slots);
  for (const subject of undo.usage.subjects) {
    st.usageUndo[undo.usage.column].run(undo.day, subject);
    st.usageDropEmpty.run(undo.day, subject); // as if the request had never been counted
  }
}

function isCharge(c: Partial<EmbeddedCharge> | undefined): boolean {
  return (
    typeof c?.accountId === 'string' &&
    Number.isSafeInteger(c.amount) &&
    (c.hourStart === undefined || Number.isSafeInteger(c.hourStart)) &&
    (c.keyId === undefined || c.keyId === null || typeof c.keyId === 'string')
  );
}

/** Check that a ticket's undo is this store's (a ticket from another store or a mangled copy is a bug). */
export function asEmbeddedUndo(undo: unknown): EmbeddedUndo {
  const u = undo as Partial<EmbeddedUndo> | null;
  const ok =
    !!u &&
    u.v === 1 &&
    typeof u.day === 'string' &&
    Array.isArray(u.counters) &&
    Array.isArray(u.slots) &&
    (u.charge === null || isCharge(u.charge)) &&
    (u.usage?.column === 'free' || u.usage?.column === 'billed') &&
    Array.isArray(u.usage.subjects);
  if (!ok) throw new TypeError('release: the ticket was not issued by the embedded store');
  return u as EmbeddedUndo;
}

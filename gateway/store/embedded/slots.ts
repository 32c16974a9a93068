/** The slot step of an admission (spec 5.5, D6, D13): decide per SlotSpec, apply only when admitted (D10). */
import { freesAt } from '../slot-view';
import type { SlotSpec } from '../types';
import type { HotStatements } from './hot-statements';

interface SlotRowData {
  member: string;
  first_seen: number;
  last_seen: number;
}

/** What an admission does to one slot set; also the undo record (JSON). */
export type SlotChange =
  | { op: 'add'; scope: string; member: string; at: number }
  | { op: 'touch'; scope: string; member: string; at: number; prev: number };

export type SlotDecision =
  | { ok: true; changes: SlotChange[]; expired: { scope: string; member: string }[] }
  | { ok: false; code: SlotSpec['refuse']; nextSlotFreeAt: number };

/** Check every SlotSpec in order against the stored entries; the first refusal wins (D9). Reads only. */
export function decideSlots(st: HotStatements, specs: readonly SlotSpec[], now: number): SlotDecision {
  const changes: SlotChange[] = [];
  const expired: { scope: string; member: string }[] = [];
  for (const spec of specs) {
    const rows = st.slotsOfScope.all(spec.scope) as SlotRowData[];
    let live = 0;
    let earliest = Infinity;
    let mine: SlotRowData | null = null;
    for (const r of rows) {
      const frees = freesAt(spec.mode, spec.windowMs, r.first_seen, r.last_seen);
      if (frees > now) {
        live += 1;
        earliest = Math.min(earliest, frees);
        if (r.member === spec.member) mine = r;
      } else if (r.member !== spec.member) {
        expired.push({ scope: spec.scope, member: r.member });
      }
    }
    if (mine) {
      changes.push({
        op: 'touch',
        scope: spec.scope,
        member: spec.member,
        at: Math.max(now, mine.last_seen),
        prev: mine.last_seen,
      });
    } else if (live < spec.capacity) {
      changes.push({ op: 'add', scope: spec.scope, member: spec.member, at: now });
    } else {
      return { ok: false, code: spec.refuse, nextSlotFreeAt: earliest };
    }
  }
  return { ok: true, changes, expired };
}

/** Apply the slot changes of an admitted request and drop expired entries of the scopes seen. */
export function applySlots(st: HotStatements, decision: Extract<SlotDecision, { ok: true }>): void {
  for (const e of decision.expired) st.slotDelete.run(e.scope, e.member);
  for (const c of decision.changes) {
    if (c.op === 'add') st.slotUpsert.run(c.scope, c.member, c.at, c.at);
    else st.slotTouch.run(c.at, c.scope, c.member);
  }
}

/**
 * Undo slot changes. An added entry is removed only if nobody used it since; a moved lastSeen is restored only if
 * nobody moved it again since (a later admission's use of the slot is not undone by this release).
 */
export function undoSlots(st: HotStatements, changes: readonly SlotChange[]): void {
  for (const c of changes) {
    if (c.op === 'add') st.slotUndoAdd.run(c.scope, c.member, c.at, c.at);
    else st.slotUndoTouch.run(c.prev, c.scope, c.member, c.at);
  }
}

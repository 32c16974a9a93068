/**
 * The reads of the admission port's account part (getAccount, usage, listSlots) as the direct path shows them: an
 * admission in flight is part of the state until it is released (ports/admission.ts), so these reads add the
 * owner's reservations to the folded rows. The ledger shows only kept charges (D35: a released admission never
 * reaches it).
 */
import { liveSlots } from '../../slot-view';
import type { Account, SlotView, UsageRow } from '../../types';
import type { Reservation } from './decide';
import type { ScopeEntry } from './state';

/** What the overlay reads from the owner. */
export interface Held {
  reservations(): Iterable<Reservation>;
  heldScope(scope: string): ScopeEntry | undefined;
  inflightCharge(accountId: string): number;
}

/** The account with its balance less what admissions in flight reserved. */
export function overlayAccount(held: Held, account: Account | null): Account | null {
  if (account === null) return null;
  const reserved = held.inflightCharge(account.id);
  return reserved === 0 ? account : { ...account, balance: account.balance - reserved };
}

/** Usage rows with the admissions in flight counted (rows ordered by day, then subject). */
export function overlayUsage(
  held: Held,
  rows: UsageRow[],
  subjects: readonly string[],
  fromDay: string,
  toDay: string,
): UsageRow[] {
  const wanted = new Set(subjects);
  const byKey = new Map(rows.map((r) => [`${r.day}\n${r.subject}`, r]));
  let added = false;
  for (const res of held.reservations()) {
    if (res.day < fromDay || res.day > toDay) continue;
    for (const subject of res.usage) {
      if (!wanted.has(subject)) continue;
      const k = `${res.day}\n${subject}`;
      let row = byKey.get(k);
      if (row === undefined) {
        row = { day: res.day, subject, free: 0, billed: 0, refused: 0 };
        byKey.set(k, row);
      } else if (rows.includes(row)) {
        row = { ...row };
        byKey.set(k, row);
      }
      row[res.billed ? 'billed' : 'free'] += 1;
      added = true;
    }
  }
  if (!added) return rows;
  return [...byKey.values()].sort((a, b) =>
    a.day === b.day ? (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) : a.day < b.day ? -1 : 1,
  );
}

/** The live slots of a set the owner holds (its entries include those in flight); else the folded rows. */
export function overlaySlots(
  held: Held,
  scope: string,
  mode: 'fixed' | 'sliding',
  windowMs: number,
  now: number,
  folded: SlotView[],
): SlotView[] {
  const entry = held.heldScope(scope);
  if (entry === undefined) return folded;
  const entries = [...entry.members].map(([member, e]) => ({ member, firstSeen: e.first, lastSeen: e.last }));
  return liveSlots(entries, mode, windowMs, now);
}

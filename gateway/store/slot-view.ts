/** Slots as the management view shows them (Store.listSlots), for both stores. */
import type { SlotSpec, SlotView } from './types';

/** When an entry frees: fixed mode firstSeen+window (A), sliding mode lastSeen+window (B). */
export function freesAt(
  mode: SlotSpec['mode'],
  windowMs: number,
  firstSeen: number,
  lastSeen: number,
): number {
  return (mode === 'fixed' ? firstSeen : lastSeen) + windowMs;
}

/** The entries still live at `now`, earliest first use first (then by member). */
export function liveSlots(
  entries: readonly { member: string; firstSeen: number; lastSeen: number }[],
  mode: SlotSpec['mode'],
  windowMs: number,
  now: number,
): SlotView[] {
  return entries
    .map(({ member, firstSeen, lastSeen }) => ({
      member,
      firstSeen,
      lastSeen,
      freesAt: freesAt(mode, windowMs, firstSeen, lastSeen),
    }))
    .filter((s) => s.freesAt > now)
    .sort((a, b) => a.firstSeen - b.firstSeen || a.member.localeCompare(b.member));
}

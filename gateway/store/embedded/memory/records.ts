/**
 * What the memory owner journals (D34). Only keeps and refusals are written: a kept admission is charged, and an
 * admission in flight when the process dies is released by its death (nothing of it reached SQLite), so replay needs
 * no admit or release record. A keep record is self-contained: the fold (and a replay) applies it alone.
 */

/** A kept admission (or one unit of a plan): what the fold adds to SQLite. */
export interface KeptRecord {
  t: 'k';
  /** Its number in this process (finds its slot writes in memory when folded). */
  n: number;
  /** UTC day of its counters and usage. */
  d: string;
  /** Free counters it incremented by one each. */
  c: string[];
  /** The account charged, or null. */
  a: string | null;
  /** Amount charged (minor units, ≥ 0). */
  m: number;
  /** The key it was admitted for (the ledger row's key, D35). */
  k: string | null;
  /** When it was admitted (epoch ms; its UTC hour is its ledger row's). */
  h: number;
  /** Usage subjects, counted in `billed` (b = 1) or `free`. */
  u: readonly string[];
  b: 0 | 1;
  /** Slot writes: [scope, member, firstSeen, lastSeen]. */
  s?: [string, string, number, number][];
  /** Expired slot entries to delete, exactly as found: [scope, member, firstSeen, lastSeen]. */
  x?: [string, string, number, number][];
}

/** A refused request counted in usage history (statistics only). */
export interface RefusedRecord {
  t: 'r';
  d: string;
  u: readonly string[];
}

/** One record of the memory owner's journal. */
export type OwnerRecord = KeptRecord | RefusedRecord;

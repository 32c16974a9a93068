/**
 * The memory owner's state (D33, one worker: the process owns every counter, balance and slot set). Each entry is
 * loaded synchronously from SQLite on first sight and holds three parts: `base` (as in SQLite), `pending` (kept but
 * not folded yet: in the journal, D34) and `inflight` (admitted, neither kept nor released). What decides is
 * base + pending + inflight (counters) or base − pending − inflight (balances); slot sets hold the effective entries
 * and, to rebuild them after an outside write, their pending writes and in-flight changes.
 */
import type Database from 'better-sqlite3';

/** One daily free counter (day, counter id). */
export interface CounterEntry {
  base: number;
  pending: number;
  inflight: number;
  seen: number;
}

/** One account's balance (minor units). */
export interface BalanceEntry {
  base: number;
  pending: number;
  inflight: number;
  seen: number;
}

/** One live or expired slot entry of a scope. */
export interface SlotEntry {
  first: number;
  last: number;
}

/** What an admission did to one slot set (its undo, and, kept, its write). */
export type SlotChange =
  | { op: 'add'; member: string; at: number }
  | { op: 'touch'; member: string; at: number; prev: number; first: number };

/** A kept slot write not folded yet: [member, firstSeen, lastSeen] (applied with MAX on both, so in any order). */
export type SlotWrite = [string, number, number];

/** One slot set (a scope). */
export interface ScopeEntry {
  members: Map<string, SlotEntry>;
  /** Kept writes not folded yet, by their record number. */
  pending: Map<number, SlotWrite>;
  /** Changes of admissions in flight. */
  inflight: Set<SlotChange>;
  seen: number;
}

/** The statements that load entries. */
interface Loaders {
  counter: Database.Statement;
  balance: Database.Statement;
  slots: Database.Statement;
}

/** Every entry the owner holds, loaded on first sight and dropped when idle. */
export class OwnerState {
  readonly days = new Map<string, Map<string, CounterEntry>>();
  readonly balances = new Map<string, BalanceEntry>();
  readonly scopes = new Map<string, ScopeEntry>();
  private readonly load: Loaders;

  constructor(db: Database.Database) {
    this.load = {
      counter: db.prepare('SELECT used FROM counters_daily WHERE day = ? AND counter_id = ?').pluck(),
      balance: db.prepare('SELECT balance FROM accounts WHERE id = ?').pluck(),
      slots: db.prepare('SELECT member, first_seen, last_seen FROM slots WHERE scope = ?'),
    };
  }

  /** The counter of `id` on `day`, loaded when first seen. */
  counter(day: string, id: string, now: number): CounterEntry {
    let ids = this.days.get(day);
    if (ids === undefined) {
      ids = new Map();
      this.days.set(day, ids);
    }
    let c = ids.get(id);
    if (c === undefined) {
      c = {
        base: (this.load.counter.get(day, id) as number | undefined) ?? 0,
        pending: 0,
        inflight: 0,
        seen: now,
      };
      ids.set(id, c);
    } else c.seen = now;
    return c;
  }

  /** The balance of an account, loaded when first seen; null when there is no such account. */
  balance(accountId: string, now: number): BalanceEntry | null {
    let b = this.balances.get(accountId);
    if (b === undefined) {
      const base = this.load.balance.get(accountId) as number | undefined;
      if (base === undefined) return null;
      b = { base, pending: 0, inflight: 0, seen: now };
      this.balances.set(accountId, b);
    } else b.seen = now;
    return b;
  }

  /** The slot set of `scope`, loaded when first seen. */
  scope(scope: string, now: number): ScopeEntry {
    let s = this.scopes.get(scope);
    if (s === undefined) {
      s = { members: this.loadMembers(scope), pending: new Map(), inflight: new Set(), seen: now };
      this.scopes.set(scope, s);
    } else s.seen = now;
    return s;
  }

  private loadMembers(scope: string): Map<string, SlotEntry> {
    const rows = this.load.slots.all(scope) as { member: string; first_seen: number; last_seen: number }[];
    const members = new Map<string, SlotEntry>();
    for (const r of rows) members.set(r.member, { first: r.first_seen, last: r.last_seen });
    return members;
  }

  /**
   * SQLite changed under the owner (another port of this process, or another process): drop the idle entries and
   * read the busy ones' base again (their pending and in-flight parts are the owner's and stay).
   */
  reload(): void {
    this.evict(Infinity);
    for (const [day, ids] of this.days)
      for (const [id, c] of ids) c.base = (this.load.counter.get(day, id) as number | undefined) ?? 0;
    for (const [id, b] of this.balances) b.base = (this.load.balance.get(id) as number | undefined) ?? 0;
    for (const [scope, s] of this.scopes) {
      s.members = this.loadMembers(scope);
      for (const w of s.pending.values()) applyWrite(s.members, w);
      for (const c of s.inflight) applyChange(s.members, c);
    }
  }

  /** Drop the entries seen before `before` that hold nothing pending or in flight (memory bound). */
  evict(before: number): number {
    let dropped = 0;
    for (const [day, ids] of this.days) {
      for (const [id, c] of ids)
        if (c.seen < before && c.pending === 0 && c.inflight === 0) {
          ids.delete(id);
          dropped += 1;
        }
      if (ids.size === 0) this.days.delete(day);
    }
    for (const [id, b] of this.balances)
      if (b.seen < before && b.pending === 0 && b.inflight === 0) {
        this.balances.delete(id);
        dropped += 1;
      }
    for (const [id, s] of this.scopes)
      if (s.seen < before && s.pending.size === 0 && s.inflight.size === 0) {
        this.scopes.delete(id);
        dropped += 1;
      }
    return dropped;
  }

  /** How many entries are held (counters, balances, slot sets). */
  size(): number {
    let n = this.balances.size + this.scopes.size;
    for (const ids of this.days.values()) n += ids.size;
    return n;
  }
}

/** A kept write over the entries read from SQLite (MAX on both times, as the fold writes it). */
export function applyWrite(members: Map<string, SlotEntry>, w: SlotWrite): void {
  const e = members.get(w[0]);
  if (e === undefined) members.set(w[0], { first: w[1], last: w[2] });
  else {
    e.first = Math.max(e.first, w[1]);
    e.last = Math.max(e.last, w[2]);
  }
}

/** An in-flight change over the entries (an add replaces an expired entry; a touch moves lastSeen). */
export function applyChange(members: Map<string, SlotEntry>, c: SlotChange): void {
  const e = members.get(c.member);
  if (c.op === 'add') {
    if (e === undefined) members.set(c.member, { first: c.at, last: c.at });
    else if (e.first < c.at) {
      e.first = c.at;
      e.last = Math.max(e.last, c.at);
    }
  } else if (e !== undefined) e.last = Math.max(e.last, c.at);
  else members.set(c.member, { first: c.first, last: c.at });
}

/** Undo an in-flight change: an added entry goes unless used since; a moved lastSeen returns unless moved since. */
export function undoChange(members: Map<string, SlotEntry>, c: SlotChange): void {
  const e = members.get(c.member);
  if (e === undefined) return;
  if (c.op === 'add') {
    if (e.first === c.at && e.last === c.at) members.delete(c.member);
  } else if (e.last === c.at) e.last = c.prev;
}

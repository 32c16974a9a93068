/**
 * Admission decided in memory by one of several processes on one SQLite file (D33, `workers: N`): the SQLite rows
 * stay the owner and this process holds leases on them (rows.ts). An admission is decided from the leases this
 * process holds: units of an account's balance, and units of each free counter-day (rule set A's key and network
 * counters both, D5). A lease miss, a new slot member or account address, and the end game (direct mode, A < 4H)
 * take one IMMEDIATE transaction at the owner; everything else is answered without SQLite. Keeps are journalled per
 * turn (gateway/journal/, one journal per holder name, e.g. `worker-2`) and folded every `foldEveryMs` in one
 * transaction that posts the kept units off the leases and records the journal position (fold.ts); the fold also
 * renews this incarnation's `alive_until` (the holder-liveness TTL) and reclaims the leases of holders past theirs.
 *
 * Lease sizes are D33's (gateway/lease/lease.ts): `min(ask, A)` with the ask `max(need, min(1000, ceil(0.5 s x
 * rate), floor(A / 2H)))`, or exactly the need in direct mode. An unused lease goes back after `idleReturnMs`; a
 * lease is not spent `stopMs` after its grant, nor `stopMs` after this holder's last renewal, and the owner counts it
 * for nothing `ttlMs` after that renewal. A refusal (402, 429, or billed instead of free) is given only when the
 * owner said it has fewer units than needed, and nothing at the owner changed since (PRAGMA data_version and this
 * process's own owner steps).
 */
import type Database from 'better-sqlite3';
import { systemClock, type Clock } from '../../../core/clock';
import { Journal } from '../../../journal/journal';
import { isDirect, leaseSize, LEASE_DEFAULTS, type LeaseParams } from '../../../lease/lease';
import type { StoreLogger } from '../../deps';
import { tightestQuota } from '../../quota';
import { freesAt } from '../../slot-view';
import type { AdmissionPlan, AdmissionResult, CounterSpec, SlotSpec, Ticket } from '../../types';
import { unitId, unitsOf } from '../../units';
import { sqliteFault } from '../faults';
import type { KeyCache } from '../key-cache';
import type { Reservation as OwnerReservation } from '../memory/decide';
import type { KeptRecord } from '../memory/records';
import { JournalledAdmission, type Expired, type Settleable, type SlotWrite } from '../memory/settle';
import type { ScopeEntry } from '../memory/state';
import type { Pruner } from '../prune';
import { LeaseFold, type HolderKept, type HolderRecord, type Posted } from './fold';
import { balanceSubject, counterSubject, LeaseRows } from './rows';

/** The lease holder's options (EmbeddedOptions with `admission: 'memory'` and `sharedByProcesses`). */
export interface LeaseHolderOptions {
  /** One name per worker slot (`worker-1`, ...): its journal and, after a crash, its replacement's. */
  name: string;
  journalDir: string;
  /** D34: fsync and fold every this many ms (default 1000). */
  foldEveryMs?: number;
  /** D33's constants (default LEASE_DEFAULTS). */
  lease?: Partial<LeaseParams>;
  /** Admissions neither kept nor released within this long are released (as the memory owner's). */
  reservationTimeoutMs?: number;
  clock?: Clock;
}

/** One lease this holder has on a subject; `row = left + inflight + unposted` (the units the owner counts). */
interface Held {
  subject: string;
  row: number;
  left: number;
  inflight: number;
  unposted: number;
  grantedAt: number;
  usedAt: number;
  winStart: number;
  winUnits: number;
  lastRate: number;
  /** Counters: the owner's `used` when last read (quota headers, D36). */
  seenUsed: number;
  /** Counters: the limit the owner's `used` had reached (used only grows within its day), or null. */
  spent: number | null;
}

interface SlotHold {
  scope: string;
  member: string;
  first: number;
  at: number;
  /** A new member: its row was written at admission (undone by a release). */
  added: boolean;
}

/** A reservation's units live in this holder's leases, under the incarnation that admitted it. */
interface Reservation extends Settleable<Held, Held, SlotHold> {
  epoch: number;
}

type Refusal = Extract<AdmissionResult, { admitted: false }>;

/** What an admission takes (all or nothing), or its refusal. */
type Decision =
  | { ok: false; refusal: Refusal }
  | {
      ok: true;
      slots: SlotHold[];
      expired: Expired[];
      counters: Held[];
      free: number;
      used: number[];
      balance: Held | null;
      accountId: string | null;
      price: number;
    };

/** The memory-only decision needs the owner. */
const OWNER = Symbol('owner');
/** This incarnation's leases were reclaimed (its renewals stopped for longer than the TTL). */
class LostLeases extends Error {}

/**
 * A slot set read at the owner answers for members already in it this long (a member new to it always goes to the
 * owner, where every process's admitted members are written at admission): an operator's slot reset is seen within it.
 */
const SCOPE_TTL_MS = 1000;

/** How long an owner's "too few" answers a refusal without asking again (when nothing was written since). */
const SHORT_MS = 250;
/** An idle holder renews its incarnation this often (the TTL is D33's 10 s). */
const RENEW_MS = 1000;

export const LEASE_UNDO = Object.freeze({ v: 'lease' as const });
const NONE: never[] = [];

/** The embedded store's admission part for one of several processes on the file. */
export class LeaseHolder extends JournalledAdmission<Reservation, HolderKept> {
  private rows!: LeaseRows;
  private folder: LeaseFold | null = null;
  private readonly p: LeaseParams;
  private readonly held = new Map<string, Held>();
  /** Slot sets as last read at the owner (`at`: when), trusted for SCOPE_TTL_MS for members already in them. */
  /** This process's slot uses not folded yet (in flight, or kept and waiting for the fold), by scope and member. */
  private readonly slotUses = new Map<string, Map<string, [number, number][]>>();
  private readonly scopes = new Map<
    string,
    { at: number; members: Map<string, { first: number; last: number }> }
  >();
  /** The owner said a subject had this many unleased units, at this owner version. */
  private readonly short = new Map<string, { version: string; a: number; at: number }>();
  private epoch = 0;
  private renewedAt = 0;
  private ownWrites = 0;
  private voidAll = false;
  private timer: NodeJS.Timeout | null = null;
  private slotStatements!: {
    add: Database.Statement;
    expired: Database.Statement;
    members: Database.Statement;
  };
  /** Kept minor units whose lease was reclaimed and the balance was lower (see fold.ts). */
  writtenOff = 0;
  /** D33's metrics: grants, direct-mode grants, owner steps, units given back. */
  readonly stats = { grants: 0, direct: 0, ownerSteps: 0, returned: 0, lost: 0 };

  constructor(
    sqlite: Database.Database,
    keyCache: KeyCache,
    private readonly holder: LeaseHolderOptions,
    log?: StoreLogger,
  ) {
    super(sqlite, keyCache, LEASE_UNDO.v, holder.reservationTimeoutMs, holder.clock ?? systemClock, log);
    this.p = { ...LEASE_DEFAULTS, ...(holder.lease ?? {}) };
  }

  override start(pruner: Pruner, busyTimeoutMs: number | null): void {
    super.start(pruner, busyTimeoutMs);
    this.rows = new LeaseRows(this.sqlite);
    this.prepareTurnCheck();
    const p = (sql: string) => this.sqlite.prepare(sql);
    this.slotStatements = {
      add: p(
        `INSERT INTO slots (scope, member, first_seen, last_seen) VALUES (?, ?, ?, ?)
         ON CONFLICT (scope, member) DO UPDATE SET first_seen = excluded.first_seen, last_seen = excluded.last_seen`,
      ),
      expired: p('DELETE FROM slots WHERE scope = ? AND member = ? AND first_seen = ? AND last_seen = ?'),
      members: p('SELECT member, first_seen, last_seen FROM slots WHERE scope = ?'),
    };
  }

  /** Replay this name's journal (a dead incarnation's keeps are posted), then start a new incarnation. */
  async open(): Promise<void> {
    const folder = new LeaseFold(this.sqlite, this.holder.name, this.rows);
    this.folder = folder;
    this.journal = await Journal.open<HolderRecord>({
      dir: this.holder.journalDir,
      name: this.holder.name,
      foldedPosition: folder.position(),
      fold: (records, position, after) => this.applyFold(records, position, after),
      foldEveryMs: this.holder.foldEveryMs ?? 1000,
      onError: (err) => this.log?.error({ err }, 'embedded store: journal write or fold failed'),
    });
    this.register();
    const every = Math.max(50, Math.min(250, Math.floor(this.p.idleReturnMs / 2)));
    this.timer = setInterval(() => {
      try {
        this.tick();
      } catch (err) {
        this.log?.error({ err }, 'embedded store: lease return failed');
      }
    }, every);
    this.timer.unref();
  }

  /** This holder's incarnation (its lease epoch; tests). */
  incarnation(): number {
    return this.epoch;
  }

  /** Units this holder reserves at the owner, by subject (tests, metrics). */
  leases(): Map<string, { row: number; left: number; inflight: number; unposted: number }> {
    const out = new Map<string, { row: number; left: number; inflight: number; unposted: number }>();
    for (const [s, h] of this.held)
      if (h.row > 0) out.set(s, { row: h.row, left: h.left, inflight: h.inflight, unposted: h.unposted });
    return out;
  }

  /** The owner's rows (tests). */
  ownerRows(): LeaseRows {
    return this.rows;
  }

  /** This process changed a key, an account or a whitelist: its leases go back and its slot sets are read again. */
  invalidate(): void {
    this.voidAll = true;
    this.scopes.clear();
    this.short.clear();
  }

  /** Fold what is kept, give every lease back and end this incarnation (its in-flight admissions are released). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    super.stop();
    const j = this.journal;
    this.journal = null;
    await j?.close();
    if (this.epoch !== 0 && this.sqlite.open) {
      try {
        this.sqlite.transaction(() => this.rows.retire(this.holder.name)).immediate();
      } catch (err) {
        this.log?.error(
          { err },
          'embedded store: leases not given back on close (reclaimed after their TTL)',
        );
      }
    }
  }

  /** Stop as a kill -9 would: nothing written or folded any more; the leases stay until the owner's TTL. */
  abandon(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.journal?.abandon();
    this.journal = null;
  }

  // The memory owner's overlay interface (fold-first.ts): this holder's admissions in flight are shown as the
  // direct path shows them (its slot rows are written at admission, so the folded rows are the slot sets).
  reservations(): Iterable<OwnerReservation> {
    return this.reserved.values() as Iterable<unknown> as Iterable<OwnerReservation>;
  }

  heldScope(scope: string): ScopeEntry | undefined {
    if (!this.slotUses.has(scope) || !this.sqlite.open) return undefined;
    return { members: this.ownerSlots(scope), pending: new Map(), inflight: new Set(), seen: 0 };
  }

  inflightCharge(accountId: string): number {
    return this.held.get(balanceSubject(accountId))?.inflight ?? 0;
  }

  override admit(plan: AdmissionPlan): Promise<AdmissionResult> {
    try {
      if (!Number.isSafeInteger(plan.now) || typeof plan.day !== 'string' || typeof plan.id !== 'string')
        throw new TypeError('admission plan: id and day must be strings and now an integer (epoch ms)');
      if (this.journal === null) throw new Error('embedded store: migrate() was not called');
      if (this.reserved.has(plan.id))
        throw new Error(`admission plan ${plan.id} was already admitted (plan ids must be unique)`);
      const n = unitsOf(plan);
      if (!this.checked) this.turnCheck();
      const now = this.clock.now();
      let d = this.decide(plan, n, now, false);
      if (d === OWNER) d = this.atOwner(plan, n, now);
      if (d === OWNER) throw new Error('lease holder: the owner step did not decide');
      return Promise.resolve(this.apply(plan, n, d, now));
    } catch (err) {
      return Promise.reject(sqliteFault(err));
    }
  }

  /* ------------------------------------------------------------------ deciding */

  private version(): string {
    return `${this.sqliteVersion}/${this.ownWrites}`;
  }

  private lease(subject: string, now: number): Held {
    let h = this.held.get(subject);
    if (h === undefined) {
      h = {
        subject,
        row: 0,
        left: 0,
        inflight: 0,
        unposted: 0,
        grantedAt: now,
        usedAt: now,
        winStart: now,
        winUnits: 0,
        lastRate: 0,
        seenUsed: 0,
        spent: null,
      };
      this.held.set(subject, h);
    }
    return h;
  }

  private usable(h: Held, now: number): boolean {
    return now - h.grantedAt < this.p.stopMs && now - this.renewedAt < this.p.stopMs;
  }

  private rate(h: Held, now: number): number {
    if (now - h.winStart >= 1000) {
      h.lastRate = Math.round((h.winUnits * 1000) / Math.max(1000, now - h.winStart));
      h.winStart = now;
      h.winUnits = 0;
    }
    return Math.max(h.lastRate, h.winUnits);
  }

  /**
   * Decide `plan`. `atOwner` false: from memory alone, OWNER when a slot member, a lease or a refusal needs the
   * owner. `atOwner` true: inside the owner's transaction, lease rows and slot rows written as needed.
   */
  private decide(plan: AdmissionPlan, n: number, now: number, atOwner: boolean): Decision | typeof OWNER {
    const counters = plan.free.map((c) => this.lease(counterSubject(plan.day, c.id), now));
    const used = counters.map((h) => h.seenUsed + h.unposted + h.inflight);
    const slots: SlotHold[] = [];
    const expired: Expired[] = [];
    for (const spec of plan.slots) {
      const r = atOwner
        ? this.slotAtOwner(spec, plan.now, now, expired)
        : this.slotInMemory(spec, plan.now, now);
      if (r === OWNER) return OWNER;
      if ('refuse' in r) return this.refusal(plan, r.refuse, used, r.next);
      slots.push(r);
    }
    let free = n;
    for (const [i, c] of plan.free.entries()) {
      const h = counters[i] as Held;
      const f = free === 0 ? 0 : this.freeOf(h, c, plan.day, n, now, atOwner);
      if (f === OWNER) return OWNER;
      free = Math.min(free, f);
    }
    if (atOwner) for (const [i, h] of counters.entries()) used[i] = h.seenUsed + h.unposted + h.inflight;
    const overflow = plan.overflow;
    let balance: Held | null = null;
    let accountId: string | null = null;
    let price = 0;
    if (free < n) {
      if (overflow.kind === 'refuse') return this.refusal(plan, overflow.code, used);
      if (overflow.kind === 'bill') {
        price = overflow.price;
        if (!Number.isSafeInteger(price) || price <= 0)
          throw new RangeError(`admission plan ${plan.id}: price must be a positive safe integer`);
        const need = price * (n - free);
        if (!Number.isSafeInteger(need)) return this.refusal(plan, overflow.refuse, used);
        accountId = overflow.accountId;
        balance = this.lease(balanceSubject(accountId), now);
        const ok = this.billOf(balance, plan, accountId, need, now, atOwner);
        if (ok === OWNER) return OWNER;
        if (!ok) return this.refusal(plan, overflow.refuse, used);
      }
    }
    if (atOwner) {
      for (const s of slots) if (s.added) this.slotStatements.add.run(s.scope, s.member, s.at, s.at);
      for (const x of expired) this.slotStatements.expired.run(x[0], x[1], x[2], x[3]);
    }
    return { ok: true, slots, expired, counters, free, used, balance, accountId, price };
  }

  private refusal(plan: AdmissionPlan, code: Refusal['code'], used: number[], next?: number): Decision {
    const refusal: Refusal = { admitted: false, code, quota: quotaOf(plan.free, used, 0) };
    if (next !== undefined) refusal.nextSlotFreeAt = next;
    return { ok: false, refusal };
  }

  private slotInMemory(spec: SlotSpec, now: number, clockNow: number): SlotHold | typeof OWNER {
    const set = this.scopes.get(spec.scope);
    if (set === undefined || clockNow - set.at >= SCOPE_TTL_MS) return OWNER;
    const e = set.members.get(spec.member);
    if (e === undefined || freesAt(spec.mode, spec.windowMs, e.first, e.last) <= now) return OWNER;
    return {
      scope: spec.scope,
      member: spec.member,
      first: e.first,
      at: Math.max(now, e.last),
      added: false,
    };
  }

  /** The slot set as the owner has it now (every process's admitted members are written at admission). */
  private slotAtOwner(
    spec: SlotSpec,
    now: number,
    clockNow: number,
    expired: Expired[],
  ): SlotHold | { refuse: Refusal['code']; next: number } {
    const members = new Map<string, { first: number; last: number }>();
    let live = 0;
    let earliest = Infinity;
    let mine: { first: number; last: number } | undefined;
    for (const [member, e] of this.ownerSlots(spec.scope)) {
      const r = { member, first_seen: e.first, last_seen: e.last };
      const frees = freesAt(spec.mode, spec.windowMs, e.first, e.last);
      if (frees > now) {
        members.set(r.member, e);
        live += 1;
        if (frees < earliest) earliest = frees;
        if (r.member === spec.member) mine = e;
      } else if (r.member !== spec.member) expired.push([spec.scope, r.member, e.first, e.last]);
    }
    this.scopes.set(spec.scope, { at: clockNow, members });
    if (mine !== undefined)
      return {
        scope: spec.scope,
        member: spec.member,
        first: mine.first,
        at: Math.max(now, mine.last),
        added: false,
      };
    if (live >= spec.capacity) return { refuse: spec.refuse, next: earliest };
    return { scope: spec.scope, member: spec.member, first: now, at: now, added: true };
  }

  /** A slot set's rows with this process's own unfolded uses on top (their lastSeen rides the fold). */
  private ownerSlots(scope: string): Map<string, { first: number; last: number }> {
    const rows = this.slotStatements.members.all(scope) as {
      member: string;
      first_seen: number;
      last_seen: number;
    }[];
    const out = new Map<string, { first: number; last: number }>();
    for (const r of rows) out.set(r.member, { first: r.first_seen, last: r.last_seen });
    const uses = this.slotUses.get(scope);
    if (uses !== undefined)
      for (const [member, list] of uses) {
        const e = out.get(member);
        if (e === undefined) continue;
        for (const [first, last] of list) {
          e.first = Math.max(e.first, first);
          e.last = Math.max(e.last, last);
        }
      }
    return out;
  }

  /** Count a use of a slot in (+1: admitted) or out (-1: released, or kept and folded); the uses left. */
  private useSlot(s: SlotHold, delta: 1 | -1): number {
    let uses = this.slotUses.get(s.scope);
    if (uses === undefined) this.slotUses.set(s.scope, (uses = new Map()));
    let list = uses.get(s.member);
    if (list === undefined) uses.set(s.member, (list = []));
    if (delta > 0) list.push([s.first, s.at]);
    else {
      const i = list.findIndex((u) => u[0] === s.first && u[1] === s.at);
      if (i >= 0) list.splice(i, 1);
    }
    if (list.length === 0) {
      uses.delete(s.member);
      if (uses.size === 0) this.slotUses.delete(s.scope);
    }
    return list.length;
  }

  /** How many of `n` units counter `c`'s lease can make free (a grant at the owner when `atOwner`). */
  private freeOf(
    h: Held,
    c: CounterSpec,
    day: string,
    n: number,
    now: number,
    atOwner: boolean,
  ): number | typeof OWNER {
    const usable = this.usable(h, now);
    if (usable && h.left >= n) return n;
    if (h.spent !== null && c.limit <= h.spent && h.left === 0) return 0; // the day's allowance is used up
    const short = this.short.get(h.subject);
    const known = this.current(short, now);
    if (!atOwner) {
      if (known && usable && short !== undefined) return Math.min(n, h.left + short.a);
      return OWNER;
    }
    const used = this.rows.used(day, c.id);
    h.seenUsed = used;
    if (used >= c.limit) h.spent = c.limit;
    const a = c.limit - used - this.rows.leased(h.subject, now) + h.left;
    return Math.min(n, this.grantAt(h, Math.max(0, a), n, now));
  }

  /**
   * Whether the owner's last "too few" still holds: nothing was written at the owner since, and a dead holder's
   * leases (which come back without a write, at its TTL) are at most SHORT_MS older than it.
   */
  private current(short: { version: string; at: number } | undefined, now: number): boolean {
    return short !== undefined && short.version === this.version() && now - short.at < SHORT_MS;
  }

  /** Whether the balance lease covers `need` (a grant at the owner when `atOwner`). */
  private billOf(
    h: Held,
    plan: AdmissionPlan,
    accountId: string,
    need: number,
    now: number,
    atOwner: boolean,
  ): boolean | typeof OWNER {
    if (this.usable(h, now) && h.left >= need) return true;
    const short = this.short.get(h.subject);
    if (!atOwner)
      return short !== undefined && this.current(short, now) && short.a + h.left < need ? false : OWNER;
    const balance = this.rows.balance(accountId);
    if (balance === null) throw new Error(`admission plan ${plan.id}: unknown account ${accountId}`);
    const a = balance - this.rows.leased(h.subject, now) + h.left;
    return this.grantAt(h, Math.max(0, a), need, now) >= need;
  }

  /**
   * The owner step on one subject (inside the owner's transaction): what is left of the lease goes back, then
   * `min(ask, A)` is granted, the ask D33's lease size (at least `need`), or exactly `need` in direct mode. Returns
   * the units the lease now has to spend.
   */
  private grantAt(h: Held, a: number, need: number, now: number): number {
    const holders = this.rows.holders(now);
    let granted = 0;
    if (a >= 1) {
      const direct = isDirect(a, holders);
      const ask = direct ? need : Math.max(need, leaseSize(a, holders, this.rate(h, now), this.p));
      granted = Math.min(ask, a);
      this.stats.grants += 1;
      if (direct) this.stats.direct += 1;
    }
    const row = h.row - h.left + granted;
    this.rows.setUnits(this.epoch, h.subject, row);
    this.stats.returned += h.left;
    h.row = row;
    h.left = granted;
    if (granted > 0) {
      h.grantedAt = now;
      h.usedAt = now;
    }
    if (granted < need) this.short.set(h.subject, { version: '', a: a - granted, at: now });
    else this.short.delete(h.subject);
    return granted;
  }

  /** The decision at the owner: one IMMEDIATE transaction (and once more after this incarnation lost its leases). */
  private atOwner(plan: AdmissionPlan, n: number, now: number): Decision | typeof OWNER {
    this.stats.ownerSteps += 1;
    for (let attempt = 0; ; attempt++) {
      const before = this.snapshot();
      try {
        const d = this.sqlite
          .transaction(() => {
            if (!this.rows.alive(this.epoch, now)) throw new LostLeases();
            const out = this.decide(plan, n, now, true);
            this.rows.renew(this.epoch, now + this.p.ttlMs);
            return out;
          })
          .immediate();
        this.renewedAt = now;
        this.ownWrites += 1;
        for (const v of this.short.values()) if (v.version === '') v.version = this.version();
        return d;
      } catch (err) {
        this.restore(before);
        if (err instanceof LostLeases && attempt === 0) {
          this.lose(now);
          continue;
        }
        throw err;
      }
    }
  }

  /** The leases' memory before an owner step (rolled back with it when its transaction fails). */
  private snapshot(): Map<string, Held> {
    const copy = new Map<string, Held>();
    for (const [s, h] of this.held) copy.set(s, { ...h });
    return copy;
  }

  private restore(before: Map<string, Held>): void {
    for (const [s, h] of this.held) {
      const b = before.get(s);
      if (b === undefined) this.held.delete(s);
      else Object.assign(h, b);
    }
    for (const [s, v] of this.short) if (v.version === '') this.short.delete(s);
  }

  /** Take the decided units from the leases and record the reservations. */
  private apply(plan: AdmissionPlan, n: number, d: Decision, now: number): AdmissionResult {
    if (!d.ok) return d.refusal;
    for (const h of d.counters) {
      h.left -= d.free;
      h.inflight += d.free;
      h.usedAt = now;
      this.rate(h, now);
      h.winUnits += d.free;
    }
    const charged = d.price * (n - d.free);
    if (d.balance !== null && charged > 0) {
      const b = d.balance;
      b.left -= charged;
      b.inflight += charged;
      b.usedAt = now;
      this.rate(b, now);
      b.winUnits += charged;
    }
    for (const s of d.slots) {
      this.useSlot(s, 1);
      if (s.added) this.scopes.get(s.scope)?.members.set(s.member, { first: s.at, last: s.at });
    }
    const ids = plan.free.map((c) => c.id);
    const base = (id: string): Reservation => ({
      id,
      epoch: this.epoch,
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
      slots: NONE,
      expired: NONE,
    });
    const quota = quotaOf(plan.free, d.used, d.free);
    if (plan.units === undefined || n === 1) {
      const res = base(plan.id);
      res.slots = d.slots;
      res.expired = d.expired;
      if (d.free === 1) {
        res.counters = d.counters;
        res.counterIds = ids;
      } else if (charged > 0) {
        res.balance = d.balance;
        res.accountId = d.accountId;
        res.amount = charged;
        res.billed = true;
      }
      this.reserved.set(plan.id, res);
      return {
        admitted: true,
        billed: res.billed,
        charged,
        quota,
        ticket: { planId: plan.id, undo: LEASE_UNDO },
      };
    }
    const units: Ticket[] = [];
    for (let i = 0; i < n; i++) {
      const id = unitId(plan.id, i);
      const res = base(id);
      if (i < d.free) {
        res.counters = d.counters;
        res.counterIds = ids;
      } else if (d.balance !== null && d.price > 0) {
        res.balance = d.balance;
        res.accountId = d.accountId;
        res.amount = d.price;
        res.billed = true;
      }
      this.reserved.set(id, res);
      units.push({ planId: id, undo: LEASE_UNDO });
    }
    const shared = base(plan.id);
    shared.usage = NONE;
    shared.slots = d.slots;
    shared.expired = d.expired;
    this.reserved.set(plan.id, shared);
    return {
      admitted: true,
      billed: charged > 0,
      charged,
      quota,
      ticket: { planId: plan.id, undo: LEASE_UNDO, units },
    };
  }

  /* ------------------------------------------------------------------ settling */

  protected onReleased(res: Reservation): void {
    if (res.epoch === this.epoch) {
      for (const h of res.counters) {
        h.inflight -= 1;
        h.left += 1;
      }
      if (res.balance !== null) {
        res.balance.inflight -= res.amount;
        res.balance.left += res.amount;
      }
    }
    // A slot this process used again since stays (as the direct path's touch keeps it).
    const added = res.slots.filter((s) => this.useSlot(s, -1) === 0 && s.added);
    if (added.length > 0) {
      // D10/D11: a released admission leaves no slot; the row goes unless another admission used it since.
      this.sqlite.transaction(() => {
        for (const s of added) this.slotStatements.expired.run(s.scope, s.member, s.at, s.at);
      })();
      this.ownWrites += 1;
      for (const s of added) {
        const set = this.scopes.get(s.scope)?.members;
        const e = set?.get(s.member);
        if (e !== undefined && e.first === s.at && e.last === s.at) set?.delete(s.member);
      }
    }
  }

  protected onKept(res: Reservation): void {
    if (res.epoch === this.epoch) {
      for (const h of res.counters) {
        h.inflight -= 1;
        h.unposted += 1;
      }
      if (res.balance !== null) {
        res.balance.inflight -= res.amount;
        res.balance.unposted += res.amount;
      }
    }
  }

  /** A kept slot use stretches the slot set as last read (its row's lastSeen rides the fold). */
  protected slotWrites(res: Reservation): SlotWrite[] {
    return res.slots.map((s) => {
      const e = this.scopes.get(s.scope)?.members.get(s.member);
      if (e !== undefined) e.last = Math.max(e.last, s.at);
      return [s.scope, s.member, s.first, s.at];
    });
  }

  /** The lease epoch the units came from: the fold posts them off that incarnation's rows. */
  protected stamp(record: KeptRecord, res: Reservation): HolderKept {
    const r = record as HolderKept;
    r.e = res.epoch;
    return r;
  }

  /** The journal's fold: posts the kept units off the leases, renews this incarnation, reclaims expired leases. */
  private applyFold(records: HolderRecord[], position: number, after: number): void {
    const folder = this.folder;
    if (folder === null) throw new Error('embedded store: the journal is not open');
    const now = this.clock.now();
    let lost = false;
    const out = folder.fold(records, position, after, () => {
      if (this.epoch === 0) return; // replaying a dead incarnation's journal on open
      if (this.rows.alive(this.epoch, now)) this.rows.renew(this.epoch, now + this.p.ttlMs);
      else lost = true;
      this.rows.reap(now);
    });
    if (this.epoch !== 0 && !lost) this.renewedAt = now;
    for (const r of records)
      if (r.t === 'k' && this.epoch !== 0 && r.s !== undefined)
        for (const w of r.s)
          this.useSlot({ scope: w[0], member: w[1], first: w[2], at: w[3], added: false }, -1);
    if (out !== null) {
      this.ownWrites += 1;
      this.posted(out.posted);
      if (out.out.writtenOff > 0) {
        this.writtenOff += out.out.writtenOff;
        this.log?.error(
          { writtenOff: out.out.writtenOff },
          'embedded store: kept charges above the balance written off',
        );
      }
    }
    if (lost) this.lose(now);
  }

  private posted(posted: Posted): void {
    const mine = posted.get(this.epoch);
    if (mine === undefined || this.epoch === 0) return;
    for (const [subject, units] of mine) {
      const h = this.held.get(subject);
      if (h === undefined) continue;
      h.row -= units;
      h.unposted -= units;
      if (subject.startsWith('c\n')) h.seenUsed += units;
    }
  }

  /* ------------------------------------------------------------------ incarnations and returns */

  /** A new incarnation: earlier ones of this name hold nothing any more. */
  private register(): void {
    const now = this.clock.now();
    this.epoch = this.sqlite
      .transaction(() => {
        const id = this.rows.register(this.holder.name, now + this.p.ttlMs);
        this.rows.reap(now);
        return id;
      })
      .immediate();
    this.renewedAt = now;
    this.ownWrites += 1;
  }

  /**
   * This incarnation was not renewed within the TTL and the owner reclaimed its leases: a new incarnation starts
   * with no lease; admissions in flight under the old one are settled without their lease (a keep is posted late,
   * capped at what the owner has; a release returns nothing, the units already went back).
   */
  private lose(now: number): void {
    this.stats.lost += 1;
    this.log?.error(
      { holder: this.holder.name },
      'embedded store: leases reclaimed after the TTL; starting again',
    );
    for (const h of this.held.values()) {
      h.row = 0;
      h.left = 0;
      h.inflight = 0;
      h.unposted = 0;
      h.grantedAt = now;
    }
    this.short.clear();
    this.register();
  }

  /**
   * Renew this incarnation and reclaim the leases of holders past their TTL (the fold does it every second when
   * there is something to fold; an idle holder still holding admissions in flight renews here).
   */
  heartbeat(): void {
    if (this.epoch === 0 || !this.sqlite.open) return;
    const now = this.clock.now();
    const alive = this.sqlite
      .transaction(() => {
        if (!this.rows.alive(this.epoch, now)) return false;
        this.rows.renew(this.epoch, now + this.p.ttlMs);
        this.rows.reap(now);
        return true;
      })
      .immediate();
    this.ownWrites += 1;
    if (!alive) return this.lose(now);
    this.renewedAt = now;
  }

  /** Idle leases (and all after an invalidation) go back to the owner; empty ones are forgotten. */
  private tick(): void {
    if (this.epoch === 0 || this.journal === null || !this.sqlite.open) return;
    const now = this.clock.now();
    const voidAll = this.voidAll;
    this.voidAll = false;
    const back: Held[] = [];
    for (const [s, h] of this.held) {
      if (h.left > 0 && (voidAll || now - h.usedAt >= this.p.idleReturnMs || !this.usable(h, now)))
        back.push(h);
      else if (h.row === 0 && h.inflight === 0 && h.unposted === 0 && now - h.usedAt >= 10_000)
        this.held.delete(s);
    }
    if (back.length === 0) {
      if (now - this.renewedAt >= RENEW_MS) this.heartbeat();
      return;
    }
    let lost = false;
    this.sqlite
      .transaction(() => {
        if (!this.rows.alive(this.epoch, now)) {
          lost = true;
          return;
        }
        for (const h of back) this.rows.setUnits(this.epoch, h.subject, h.row - h.left);
        this.rows.renew(this.epoch, now + this.p.ttlMs);
      })
      .immediate();
    this.ownWrites += 1;
    if (lost) return this.lose(now);
    this.renewedAt = now;
    for (const h of back) {
      this.stats.returned += h.left;
      h.row -= h.left;
      h.left = 0;
    }
  }
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

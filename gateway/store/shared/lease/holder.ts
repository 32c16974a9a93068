/**
 * The holder's side of D33 on the shared store: an instance keeps credit leases on its accounts' wallets and decides
 * in memory a billed request of one unit whose free counters the owner reported exhausted and whose slots hold the
 * request's member live (or that has none): no Redis call. Everything else (and a lease miss) goes to the owner's
 * per-request script, which spends only what no holder has leased, so it stays exact. Kept units are posted and
 * idle leases returned by one flush every `flushMs` (FLUSH_LUA); a grant is asked when a lease is down to
 * `refreshAt` of its last grant.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../core/clock';
import {
  idle,
  keep as keepUnits,
  NO_LEASE,
  refill,
  release as releaseUnits,
  take,
  type Lease,
} from '../../../lease/lease';
import { hourStartOf } from '../../charge-hour';
import { tightestQuota } from '../../quota';
import type { AdmissionPlan, AdmissionResult, Ticket } from '../../types';
import type { Invalidation } from '../cache';
import type { Layout } from '../layout';
import type { RedisClient } from '../redis-client';
import { StoreUnavailableError } from '../errors';
import {
  Owner,
  type ChargeEvent,
  type FlushBatch,
  type FlushReply,
  type SeenUpdate,
  type WalletFlush,
} from './owner';
import { leaseOptions, type LeaseOptions } from './options';
import { LeaseStats } from './stats';
import { OwnerView } from './view';

/** Owner admissions remembered at most (their ids, for the duplicate check). */
const MAX_DIRECT_IDS = 100_000;

/**
 * Charge events a holder keeps after a flush applied them, for as long as Redis may still hold them undrained (the
 * drain writes them to PostgreSQL within 250 ms normally): if Redis loses its data meanwhile, those not drained are
 * charged again from here. Beyond these bounds (PostgreSQL down longer), an empty restart loses them, as it loses
 * the owner's undrained events.
 */
const RETAIN_MS = 60_000;
const MAX_RETAINED = 200_000;

/** Rounds of a flush that found a wallet missing or Redis's data lost (each round fixes what it found). */
const MAX_FLUSH_ROUNDS = 4;

/** What a holder needs from PostgreSQL to recover after Redis lost its data (context.ts). */
export interface LeaseRecovery {
  /** Which of these charge event ids the drain has written to PostgreSQL (shared_drained). */
  drained(ids: readonly string[]): Promise<Set<string>>;
  /** Initialise an account's wallet from its ledger sum (once: HSETNX), as every script that spends does first. */
  initWallet(accountId: string): Promise<void>;
}

/** Ticket.undo of an admission decided from a lease (its state stays in the holder's memory). */
export const LEASE_UNDO = Object.freeze({ v: 'lease-1' });

/** An admission decided from a lease, until kept or released. */
interface InFlight {
  credit: Credit;
  price: number;
  plan: AdmissionPlan;
  /** Charged at the owner by a flush before it was settled (counted in its credit's `pif`). */
  posted: boolean;
}

/** Kept answers of one key, account and day not posted yet. */
interface Charges {
  keyId: string;
  day: string;
  usage: string;
  charged: number;
  requests: number;
  /** The start of the UTC hour of the admissions' time (plan.now): their hourly ledger row (D35). */
  at: number;
}

/** One account's credit lease and what is known about its traffic. */
class Credit {
  lease: Lease = NO_LEASE;
  /** Units of the last grant (a refresh is asked at `refreshAt` of it). */
  lastGrant = 0;
  /** Requests seen since `since` (the recent rate, D33). */
  seen = 0;
  since = 0;
  /** A grant or a flush of this account is on its way (never both: the holder's count must match the owner's). */
  busy = false;
  /** The grant on its way, if any. */
  granting: Promise<void> | null = null;
  wantGrant = false;
  /** No grant before this (the owner answered direct mode, D33: A < 4H). */
  directUntil = 0;
  /** Units sent in a flush not answered yet, less its refunds (still owed by the account, for its balance). */
  posting = 0;
  /**
   * Units of admissions charged by a flush while in flight (not kept or released yet): the owner refunds them if
   * this holder dies before settling them (its lease expires), so an unanswered request is never charged (D34).
   */
  pif = 0;
  /** `pif` as the owner last heard it (a keep of a charged admission changes it: the next flush reports it). */
  sentPif = 0;
  /** Units of posted admissions released since (D11): the next flush gives them back. */
  refund = 0;
  /** Return what is left at the next flush (revocation, suspension, whitelist change). */
  voidAll = false;
  /** When a flush last renewed this holder's lease field at the owner (its expiry, `ttlMs` later). */
  renewedAt = 0;
  /** A reply was lost: the next flush bounds the owner's count by the holder's. */
  resync = false;
  readonly charges = new Map<string, Charges>();

  constructor(
    readonly accountId: string,
    now: number,
  ) {
    this.since = now;
  }
}

/** A holder of credit leases (one per store instance). */
export class LeaseHolder {
  readonly stats = new LeaseStats();
  private readonly opts: LeaseOptions;
  private readonly owner: Owner;
  private readonly credits = new Map<string, Credit>();
  private readonly inFlight = new Map<string, InFlight>();
  private readonly view: OwnerView;
  private readonly prices = new Map<string, number>();
  private readonly direct = new Set<string>();
  private seen = new Map<string, SeenUpdate>();
  private seq = 0;
  private seenSentAt = 0;
  private unsent: FlushBatch | null = null;
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reclaimTimer: NodeJS.Timeout | null = null;
  private reclaiming: Promise<number> | null = null;
  /** The lease epoch of each flush group as this holder last flushed there (owner.ts, FLUSH_LUA). */
  private readonly epochs = new Map<number, string>();
  /** Charge events applied by flushes and maybe not drained yet, oldest first (RETAIN_MS). */
  private retained: { at: number; ev: ChargeEvent }[] = [];

  constructor(
    redis: RedisClient,
    layout: Layout,
    cluster: boolean,
    private readonly clock: Clock,
    private readonly warn: (err: unknown, msg: string) => void,
    options: Partial<LeaseOptions> = {},
    private readonly recovery: LeaseRecovery | null = null,
  ) {
    this.opts = leaseOptions(options);
    const id = randomBytes(9).toString('base64url');
    this.owner = new Owner(redis, layout, cluster, id, this.opts.ttlMs);
    this.view = new OwnerView(this.owner, clock, this.opts, this.stats);
    this.seq = this.clock.now(); // flush numbers grow across restarts of this holder id too
  }

  /** Start the flush timer and the background reclaim. */
  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.flush().catch(() => undefined), this.opts.flushMs);
    this.timer.unref();
    if (this.opts.reclaimMs > 0) {
      const run = () =>
        void this.reclaim().catch((err: unknown) => this.warn(err, 'shared store: lease reclaim will retry'));
      this.reclaimTimer = setInterval(run, this.opts.reclaimMs);
      this.reclaimTimer.unref();
    }
  }

  /** Stop the timers (what is kept and leased then waits for `flush`, or for the owner's TTL). */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    if (this.reclaimTimer !== null) clearInterval(this.reclaimTimer);
    this.timer = null;
    this.reclaimTimer = null;
  }

  /**
   * Reclaim the expired leases of every account whose earliest lease expiry has passed, whichever holder they were
   * granted to (a dead holder's units and unsettled charges come back even when no script touches the wallet
   * again): the accounts due, from the shards' lease indexes, then one script per such account. One run at a time;
   * resolves to the number of accounts visited.
   */
  reclaim(): Promise<number> {
    if (this.reclaiming !== null) return this.reclaiming;
    const run = (async () => {
      const now = this.clock.now();
      const due = await this.owner.dueAccounts(now);
      for (const id of due) await this.owner.reclaim(id, now);
      this.stats.reclaimed += due.length;
      return due.length;
    })().finally(() => (this.reclaiming = null));
    this.reclaiming = run;
    return run;
  }

  /** Stop the timer and post what is kept, returning every lease (the store's close). */
  async close(): Promise<void> {
    this.stop();
    for (const c of this.credits.values()) c.voidAll = true;
    await this.flush();
  }

  /**
   * Decide `plan` from a lease, synchronously, or null (the caller asks the owner). Only a billed plan of one unit
   * whose counters the owner reported exhausted and whose slots hold its member live.
   */
  tryAdmit(plan: AdmissionPlan): AdmissionResult | null {
    const of = plan.overflow;
    if (of.kind !== 'bill' || (plan.units !== undefined && plan.units !== 1)) return null;
    const now = this.clock.now();
    let credit = this.credits.get(of.accountId);
    if (credit === undefined) this.credits.set(of.accountId, (credit = new Credit(of.accountId, now)));
    credit.seen += 1;
    const used = this.view.exhaustedCounters(plan, now);
    const slots = this.view.slotsLive(plan.slots, plan.now, now);
    if (used === null || slots === 0) {
      this.stats.misses += 1;
      return null;
    }
    if (slots === 2) this.view.probe(plan);
    if (this.inFlight.has(plan.id) || this.direct.has(plan.id)) {
      throw new Error(`admission plan ${plan.id} was already admitted`);
    }
    const taken = take(credit.lease, of.price, now, this.opts);
    if (taken === null) {
      this.stats.misses += 1;
      this.askGrant(credit, of.price);
      return null;
    }
    credit.lease = taken;
    if (taken.left < this.opts.refreshAt * credit.lastGrant) this.askGrant(credit, of.price);
    this.inFlight.set(plan.id, { credit, price: of.price, plan, posted: false });
    tally(credit, plan, 1, of.price);
    this.stats.leased += 1;
    const ticket: Ticket = { planId: plan.id, undo: LEASE_UNDO };
    return { admitted: true, billed: true, charged: of.price, quota: tightestQuota(plan.free, used), ticket };
  }

  /** After the owner decided a plan the holder could not: ask for a lease, or for the view it lacked. */
  missed(plan: AdmissionPlan): void {
    const of = plan.overflow;
    if (of.kind !== 'bill' || (plan.units !== undefined && plan.units !== 1)) return;
    const credit = this.credits.get(of.accountId);
    if (credit !== undefined && credit.lease.left < of.price) this.askGrant(credit, of.price);
    this.view.probe(plan);
  }

  /** Units of `accountId` this holder spent but has not charged at the owner yet (its balance lags by them). */
  owed(accountId: string): number {
    const c = this.credits.get(accountId);
    return c === undefined ? 0 : c.lease.inFlight + c.lease.unposted + c.posting - c.refund;
  }

  /** Units this holder has leased of `accountId` and not spent (a refusal is early by these, D33). */
  parked(accountId: string): number {
    return this.credits.get(accountId)?.lease.left ?? 0;
  }

  /**
   * Whether this holder has credit of `accountId`, or a grant or return of it is on its way (then it returns it, and
   * waits until the owner has it back, before a refusal).
   */
  mayHold(accountId: string): boolean {
    const c = this.credits.get(accountId);
    return c !== undefined && (c.lease.left > 0 || c.busy);
  }

  /** Keep a lease admission (answered, D11): its units wait for the next flush. False: not one of this holder's. */
  keep(planId: string): boolean {
    const f = this.inFlight.get(planId);
    if (f === undefined) return false;
    this.inFlight.delete(planId);
    const c = f.credit;
    if (f.posted) c.pif -= f.price;
    else c.lease = keepUnits(c.lease, f.price);
    const plan = f.plan;
    for (const s of plan.slots) {
      const sk = `${s.scope}\n${s.member}`;
      const prior = this.seen.get(sk);
      if (prior === undefined) this.seen.set(sk, { scope: s.scope, member: s.member, lastSeen: plan.now });
      else if (prior.lastSeen < plan.now) prior.lastSeen = plan.now;
    }
    return true;
  }

  /** Release a lease admission (D11): its units return to the lease. False: not one of this holder's. */
  release(planId: string): boolean {
    const f = this.inFlight.get(planId);
    if (f === undefined) return false;
    this.inFlight.delete(planId);
    const c = f.credit;
    if (f.posted) {
      c.pif -= f.price;
      c.refund += f.price;
    } else c.lease = releaseUnits(c.lease, f.price);
    tally(c, f.plan, -1, -f.price); // its usage and charge, counted at admission, are taken back
    return true;
  }

  /**
   * A plan the owner admitted (not from a lease): its id is remembered until settled, so admitting it again from a
   * lease is a fault as at the owner (the port's contract). Bounded: the oldest ids are forgotten first.
   */
  admittedAtOwner(planId: string): void {
    if (this.direct.size >= MAX_DIRECT_IDS) {
      const oldest = this.direct.values().next();
      if (oldest.done !== true) this.direct.delete(oldest.value);
    }
    this.direct.add(planId);
  }

  /**
   * An owner admission settled. A release may have freed free units the holder's view still counts as used (this
   * instance's release: forget the view; another instance's shows within `idleReturnMs`, D33's bound).
   */
  settledAtOwner(planId: string, released: boolean): void {
    this.direct.delete(planId);
    if (released) this.view.forgetCounters();
  }

  /** Return the leases an invalidation touches at the next flush (D33: within a second) and forget the view. */
  invalidated(msg: Invalidation): void {
    if (msg.k === 'account') {
      const c = this.credits.get(msg.id);
      if (c !== undefined) c.voidAll = true;
      return;
    }
    // the whitelist or everything: which accounts it touches is not known here
    for (const c of this.credits.values()) c.voidAll = true;
    this.view.forget();
  }

  /** Return every lease of `accountId` now (before a refusal: the owner must say nothing is left, D33). */
  async returnParked(accountId: string): Promise<void> {
    const c = this.credits.get(accountId);
    if (c === undefined) return;
    c.directUntil = this.clock.now() + this.opts.directBackoffMs; // the endgame: the owner decides (D33)
    if (c.granting !== null) await c.granting;
    c.voidAll = true;
    await this.flush();
  }

  /**
   * A flush before a read of the ledger, usage or balance: the grants on their way are awaited first, so no account
   * is left out of it for being busy (a release's refund then reaches the ledger with the read that follows it).
   */
  async flushForRead(): Promise<void> {
    const grants: Promise<void>[] = [];
    for (const c of this.credits.values()) if (c.granting !== null) grants.push(c.granting);
    if (grants.length > 0) await Promise.all(grants);
    await this.flush();
  }

  /**
   * Post kept units, return idle, stopped and voided leases, move slots' lastSeen: one script per flush (one per
   * shard on a cluster). A flush whose reply was lost is sent again, unchanged, before anything new.
   */
  flush(): Promise<void> {
    // A flush on its way may fail (Redis was down when it started): this caller's flush is still tried afterwards, so
    // a read that flushes first (flushForRead) does not skip the holder's charges for a failure that is over.
    if (this.flushing !== null) return this.flushing.catch(() => undefined).then(() => this.flush());
    const run = this.flushOnce().finally(() => (this.flushing = null));
    this.flushing = run;
    return run;
  }

  private async flushOnce(): Promise<void> {
    if (this.unsent !== null) {
      await this.send(this.unsent, [], true);
      this.unsent = null;
    }
    const now = this.clock.now();
    const wallets: WalletFlush[] = [];
    const events: ChargeEvent[] = [];
    const included: Credit[] = [];
    this.seq += 1;
    // Admissions in flight are charged now, as the owner's script charges at admission (the port's contract); a
    // later release refunds them, and the owner refunds them itself if this holder dies first (`pif`).
    const detail = new Map<Credit, Map<string, [number, number]>>();
    for (const f of this.inFlight.values()) {
      const c = f.credit;
      if (c.busy) continue;
      if (!f.posted) {
        f.posted = true;
        c.lease = keepUnits(c.lease, f.price);
        c.pif += f.price;
      }
      // where each unsettled charge went: a reclaim after this holder's death refunds it there (D35)
      const p = f.plan;
      const line = `${p.keyId ?? ''}\t${p.day}\t${hourStartOf(p.now)}\t${p.usage.join(' ')}`;
      let m = detail.get(c);
      if (m === undefined) detail.set(c, (m = new Map()));
      const d = m.get(line);
      if (d === undefined) m.set(line, [1, f.price]);
      else [d[0], d[1]] = [d[0] + 1, d[1] + f.price];
    }
    for (const c of this.credits.values()) {
      if (c.busy) continue;
      const l = c.lease;
      const stopped = now - l.grantedAt >= this.opts.stopMs;
      const back = c.voidAll || idle(l, now, this.opts) || stopped ? l.left : 0;
      // a lease field that carries unsettled charges (pif) is renewed too: expired, the owner would refund them as
      // a dead holder's while this one is alive and may still keep them
      const renew =
        (l.reserved > 0 || c.pif > 0) && now - Math.max(l.grantedAt, c.renewedAt) >= this.opts.ttlMs / 4;
      const quiet =
        l.unposted === 0 && back === 0 && c.refund === 0 && c.charges.size === 0 && c.pif === c.sentPif;
      if (quiet && !renew && !c.resync) {
        if (l.reserved === 0 && c.pif === 0 && now - l.usedAt > this.opts.ttlMs)
          this.credits.delete(c.accountId);
        continue;
      }
      c.voidAll = false;
      const reserved = l.reserved - l.unposted - back;
      wallets.push({
        accountId: c.accountId,
        post: l.unposted,
        void: back,
        refund: c.refund,
        pif: c.pif,
        pifDetail: [...(detail.get(c) ?? new Map<string, [number, number]>()).entries()]
          .map(([line, [n, units]]) => `${line}\t${n}\t${units}`)
          .join('\n'),
        set: c.resync ? reserved : -1,
      });
      c.resync = false;
      c.sentPif = c.pif;
      c.posting = l.unposted - c.refund;
      c.refund = 0;
      for (const ch of c.charges.values()) {
        if (ch.requests === 0 && ch.charged === 0) continue;
        events.push({
          id: `${this.owner.holderId}.${this.seq}.${events.length}`,
          accountId: c.accountId,
          keyId: ch.keyId,
          day: ch.day,
          usage: ch.usage,
          charged: ch.charged,
          requests: ch.requests,
          at: ch.at,
        });
      }
      c.charges.clear();
      c.lease = { ...l, reserved, left: l.left - back, unposted: 0 };
      this.stats.returned += back;
      c.busy = true;
      included.push(c);
    }
    // lastSeen moves (and the members' confirmation) ride every other flush: half of `viewMs` apart
    let seen: SeenUpdate[] = [];
    if (now - this.seenSentAt >= this.opts.viewMs / 2) {
      seen = [...this.seen.values()];
      this.seen = new Map();
      this.seenSentAt = now;
    }
    if (wallets.length === 0 && seen.length === 0) return;
    await this.send({ seq: this.seq, now, wallets, events, seen }, included, false);
  }

  /**
   * Send a flush; `again`: a flush whose reply was lost (the holder's counts then resynchronise). A group where Redis
   * lost its data since the last flush, or a wallet missing, applied nothing: the holder recovers (see `recover`),
   * initialises the wallets from the ledger, and sends the flush again under the same number.
   */
  private async send(batch: FlushBatch, included: Credit[], again: boolean): Promise<void> {
    let r: FlushReply | null = null;
    for (let round = 1; r === null; round++) {
      try {
        const got = await this.owner.flush(
          batch,
          this.epochs,
          `${this.owner.holderId}.${batch.seq}.${round}`,
        );
        for (const [g, e] of got.epochs) if (!got.lost.includes(g)) this.epochs.set(g, e);
        if (got.lost.length === 0 && got.needWallets.length === 0) {
          r = got;
          continue;
        }
        if (round >= MAX_FLUSH_ROUNDS) {
          throw new StoreUnavailableError(
            'redis',
            'lease flush: wallets still missing after initialising them',
          );
        }
        if (got.lost.length > 0) batch = await this.recover(batch, got.lost, got.epochs);
        for (const id of new Set(got.needWallets)) batch = await this.initWallet(batch, id);
        again = true;
      } catch (err) {
        // The outcome is unknown: the same flush is sent again (its number makes it apply once).
        this.unsent = batch;
        for (const c of included) c.busy = false;
        this.stats.flushFailures += 1;
        throw err;
      }
    }
    if (r === null) return; // not reached: the loop ends with a reply
    this.stats.flushes += 1;
    const at = this.clock.now();
    for (const ev of batch.events) this.retained.push({ at, ev });
    this.pruneRetained(at);
    batch.wallets.forEach((w, i) => {
      const c = this.credits.get(w.accountId);
      const res = r.wallets[i];
      if (c === undefined || res === undefined) return;
      c.posting = 0;
      c.busy = false;
      c.renewedAt = batch.now;
      this.stats.writtenOff += res.writtenOff;
      if (again || res.leased === -2) c.resync = true;
      else this.settleCount(c, res.leased, batch.now);
      if (c.wantGrant) this.askGrant(c, 0);
    });
    for (const c of included) c.busy = false;
    batch.seen.forEach((s, i) => this.view.confirmSlot(s.scope, s.member, r.seen[i] ?? null, batch.now));
  }

  /** Forget the retained events older than RETAIN_MS, and the oldest beyond MAX_RETAINED. */
  private pruneRetained(now: number): void {
    const r = this.retained;
    let drop = Math.max(0, r.length - MAX_RETAINED);
    while (drop < r.length && now - (r[drop]?.at ?? now) > RETAIN_MS) drop++;
    if (drop > 0) r.splice(0, drop);
  }

  /**
   * Redis lost its data since this holder last flushed in `groups` (an empty restart: the epoch changed). Gone with it:
   * this holder's leases there (it stops spending them; what it admitted from them is charged late, from what is
   * unleased), the `pif` fields (written again by the next flush), and the charge events flushed there that the drain
   * had not written to PostgreSQL yet. Those are charged again: the events of `batch` and of the earlier flushes
   * (`retained`) whose ids are not in `shared_drained`, with the same ids, in the flush that follows (the wallets are
   * initialised from the ledger first, which cannot hold a lost event). The drain records each id once, so an event
   * counted before the loss is not charged twice. Returns `batch` with the lost groups' part replaced by that.
   */
  private async recover(
    batch: FlushBatch,
    groups: number[],
    epochs: Map<number, string>,
  ): Promise<FlushBatch> {
    const hit = (accountId: string) => groups.includes(this.owner.groupOf(accountId));
    const candidates = [
      ...this.retained.filter((r) => hit(r.ev.accountId)).map((r) => r.ev),
      ...batch.events.filter((e) => hit(e.accountId)),
    ];
    if (this.recovery === null)
      throw new Error('lease holder: Redis lost its data and no recovery is configured');
    const drained =
      candidates.length > 0 ? await this.recovery.drained(candidates.map((e) => e.id)) : new Set();
    this.retained = this.retained.filter((r) => !hit(r.ev.accountId));
    const undrained = candidates.filter((e) => !drained.has(e.id));
    const wallets = new Map<string, WalletFlush>();
    for (const e of undrained) {
      let w = wallets.get(e.accountId);
      if (w === undefined) {
        w = { accountId: e.accountId, post: 0, void: 0, refund: 0, pif: 0, pifDetail: '', set: -1 };
        wallets.set(e.accountId, w);
      }
      // a flush's events carry what its wallet part charged (post − refund), per key and hour
      if (e.charged > 0) w.post += e.charged;
      else w.refund -= e.charged;
    }
    for (const c of this.credits.values()) {
      if (!hit(c.accountId)) continue;
      c.lease = { ...c.lease, reserved: c.lease.inFlight + c.lease.unposted, left: 0 };
      c.sentPif = -1; // the next flush writes the unsettled charges' field again
    }
    for (const g of groups) {
      const e = epochs.get(g);
      if (e !== undefined) this.epochs.set(g, e);
    }
    this.stats.recoveries += 1;
    this.stats.recharged += undrained.reduce((a, e) => a + e.requests, 0);
    this.warn(
      new Error(`lease state lost in ${groups.length} flush group(s)`),
      `shared store: Redis lost its data; ${undrained.length} undrained lease charge event(s) charged again`,
    );
    return {
      ...batch,
      wallets: [...batch.wallets.filter((w) => !hit(w.accountId)), ...wallets.values()],
      events: [...batch.events.filter((e) => !hit(e.accountId)), ...undrained],
    };
  }

  /**
   * A wallet the flush found missing (Redis lost its data): initialised from the ledger before the flush posts to it,
   * so the kept units are charged rather than written off. An account that no longer exists: its part is dropped.
   */
  private async initWallet(batch: FlushBatch, accountId: string): Promise<FlushBatch> {
    if (this.recovery === null)
      throw new Error('lease holder: a wallet is missing and no recovery is configured');
    try {
      await this.recovery.initWallet(accountId);
      return batch;
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      this.warn(err, 'shared store: lease charges of an account without a wallet dropped');
      return {
        ...batch,
        wallets: batch.wallets.filter((w) => w.accountId !== accountId),
        events: batch.events.filter((e) => e.accountId !== accountId),
      };
    }
  }

  /** Align the holder's lease with the owner's count of it (less: reclaimed at TTL; more: resync next flush). */
  private settleCount(c: Credit, leased: number, now: number): void {
    const l = c.lease;
    if (leased < 0) {
      c.lease = { ...l, reserved: l.inFlight + l.unposted, left: 0 };
      return;
    }
    if (leased < l.reserved) {
      const cut = Math.min(l.left, l.reserved - leased);
      c.lease = { ...l, left: l.left - cut, reserved: l.reserved - cut };
    } else if (leased > l.reserved) c.resync = true;
    if (leased > 0) c.lease = { ...c.lease, grantedAt: now };
  }

  /** Ask the owner for credit (async; one call per account at a time). */
  private askGrant(c: Credit, price: number): void {
    const now = this.clock.now();
    if (c.busy) {
      c.wantGrant = true;
      return;
    }
    if (now < c.directUntil) return;
    const p = price > 0 ? price : (this.prices.get(c.accountId) ?? 0);
    if (p <= 0) return;
    this.prices.set(c.accountId, p);
    c.wantGrant = false;
    c.busy = true;
    const rate = (c.seen * 1000) / Math.max(now - c.since, 100);
    c.seen = 0;
    c.since = now;
    const ask = Math.max(1, Math.min(this.opts.maxLease, Math.ceil((rate * this.opts.windowMs) / 1000)));
    this.stats.grants += 1;
    c.granting = this.owner
      .grant(c.accountId, ask, p, now)
      .then((r) => {
        c.busy = false;
        if (r.kind === 'needs-wallet') return; // the next direct admission initialises it
        if (r.granted === 0) {
          this.stats.direct += 1;
          c.directUntil = now + this.opts.directBackoffMs;
        } else {
          c.lastGrant = r.granted;
          if (r.granted > this.stats.largestGrant) this.stats.largestGrant = r.granted;
          c.lease = refill(c.lease, r.granted, now);
        }
        if (r.leased !== c.lease.reserved) c.resync = true;
      })
      .catch((err: unknown) => {
        c.busy = false;
        c.resync = true; // the grant may have happened: the next flush bounds the owner's count
        this.warn(err, 'shared store: lease grant failed');
      })
      .finally(() => (c.granting = null));
  }
}

/**
 * Add an admission (+1 request and its charge, at admission: usage counts admitted requests, as at the owner) or a
 * release (−1) to what the next flush reports for the plan's key, day and hour (the hour of the plan's time, as the
 * owner's script records its admissions: one hourly row whichever path decided them).
 */
function tally(c: Credit, plan: AdmissionPlan, requests: number, charged: number): void {
  const at = hourStartOf(plan.now);
  const k = `${plan.keyId ?? ''}\t${plan.day}\t${at}`;
  const agg = c.charges.get(k);
  if (agg !== undefined) {
    agg.requests += requests;
    agg.charged += charged;
    return;
  }
  const usage = plan.usage.join(' ');
  c.charges.set(k, { keyId: plan.keyId ?? '', day: plan.day, usage, charged, requests, at });
}

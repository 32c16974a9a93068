/**
 * The shared store (issue 4): PostgreSQL holds accounts, keys, whitelist, plans, the ledger and the usage history;
 * Redis holds the hot state (daily counters, IP slots, account address sets, balances being spent). Several gateway
 * instances on one shared store behave as one gateway. See docs/shared-state.md.
 */
import type { Knex } from 'knex';
import { systemClock, type Clock } from '../../core/clock';
import { isStoreUnavailable } from '../faults';
import { normaliseEmail, requireKeyOfAccount, requireLimit, requireSameTopup, requireUnits } from '../checks';
import { newOrderedId } from '../ids';
import { runMigrations } from '../migrations';
import { addressKey } from '../ranges';
import { KEY_COLUMNS, toAccount, toKey, toKeyIdentity, toLedger, toUsage } from '../rows';
import { liveSlots } from '../slot-view';
import {
  StoreConflict,
  type Account,
  type AccountStatus,
  type AdmissionPlan,
  type AdmissionResult,
  type ApiKey,
  type KeyIdentity,
  type KeyRestrictions,
  type LedgerEntry,
  type NewAccount,
  type NewKey,
  type SlotView,
  type Ticket,
  type UsageRow,
  type WhitelistEntry,
} from '../types';
import type { Store } from '../ports';
import { Admitter, sharedUndo } from './admission';
import { Keeper } from './keeper';
import { rebuildCounters, shardsNotReady } from './rebuild';
import { InvalidationBus } from './bus';
import { IdentityCache, type Invalidation, type WhitelistBlock } from './cache';
import { Drain } from './drain';
import { pgFault, redisFault, StoreUnavailableError } from './errors';
import { Layout, shardOf } from './layout';
import { ensureDrainTable, openPostgres } from './pg';
import * as pga from './pg-accounts';
import * as lifecycle from './account-lifecycle';
import { requireReachable } from './probe';
import { SharedMarks } from './single-use';
import { SharedWindows } from './throttle';
import { SharedNotifications } from './notifications';
import type {
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryLogEntry,
  DeliveryNext,
  NewDelivery,
  NotificationEvent,
  NotificationSettings,
  UnlimitedEnding,
  WebhookEndpoint,
} from '../notifications';
import { watchPageSize } from '../notifications';
import { connectRedis, type RedisClient } from './redis-client';
import { MARK_TTL_S, type MarkRef } from './step';
import { Wallets } from './wallet';
import * as listing from './listing';
import * as receipts from './receipts';
import * as refunds from './refunds';
import type { RefundInput, RefundResult } from '../refunds';
import { requireReceiptInput, type BillingDetails, type Receipt, type ReceiptInput } from '../receipts';
import { setKeyRestrictions } from './restrictions';
import type { AccountQuery, KeyQuery } from '../listing';

/** After a PostgreSQL connection failure, identification reads fail fast (serving the cache) for this long. */
const PG_BREAKER_MS = 1_000;

/** Unanswered admissions remembered for release once Redis answers again (beyond: they stay counted, safe side). */
const MAX_PENDING_RELEASES = 100_000;

/** What the shared store needs. */
export interface SharedStoreOptions {
  /** PostgreSQL URL. */
  postgres: string;
  /** `redis://host:port[/db]` or `redis+cluster://host:port,host:port` (seeds). */
  redis: string;
  /** Prefix of every Redis key and channel (default "geogate:"). */
  keyPrefix?: string;
  /** Lifetime of identification cache entries (default 5 s; pub/sub invalidates sooner). */
  cacheTtlMs?: number;
  /**
   * Crash recovery (issue 13): release admissions neither kept nor released this long after they were admitted
   * (their instance died), on open and every `sweepIntervalMs`. Set it above the backend timeout plus a margin, and
   * only when the caller keeps every answered admission (`keep`); unset: no sweeper.
   */
  reservationTimeoutMs?: number;
  /** How often the sweeper runs (default: a quarter of the reservation timeout, at most 10 s). */
  sweepIntervalMs?: number;
  /** How often the ledger drain runs (default 250 ms). */
  drainIntervalMs?: number;
  logger?: { warn(o: object, msg?: string): void; error(o: object, msg?: string): void };
  /**
   * The gateway's clock (default: system): cache lifetimes, the PostgreSQL breaker, wallet and release event times.
   * The drain's bookkeeping of Redis stream ids stays on wall time (it pairs with Redis's own time, not with rules).
   */
  clock?: Clock;
}

/** The Store on PostgreSQL + Redis. Open with SharedStore.open, then migrate(). */
export class SharedStore implements Store {
  readonly layout: Layout;
  readonly cluster: boolean;
  readonly drain: Drain;
  private readonly cache: IdentityCache;
  private readonly bus: InvalidationBus;
  private readonly wallets: Wallets;
  private readonly admitter: Admitter;
  private readonly marks: SharedMarks;
  private readonly windows: SharedWindows;
  private readonly notices: SharedNotifications;
  private readonly pending = new Map<string, MarkRef[]>();
  private timer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;
  private rebuilding: Promise<number> | null = null;
  private readonly keeper: Keeper;
  private pgDownUntil = 0;
  private drainFailing = false;
  private closed = false;
  private readonly clock: Clock;

  private constructor(
    readonly redis: RedisClient,
    readonly knex: Knex,
    cluster: boolean,
    private readonly opts: SharedStoreOptions,
  ) {
    this.cluster = cluster;
    this.clock = opts.clock ?? systemClock;
    this.layout = new Layout(opts.keyPrefix ?? 'geogate:');
    this.cache = new IdentityCache(opts.cacheTtlMs ?? 5_000, this.clock);
    this.wallets = new Wallets(redis, knex, this.layout, this.clock);
    this.marks = new SharedMarks(knex);
    this.notices = new SharedNotifications(knex);
    this.keeper = new Keeper(redis, this.layout, this.clock, cluster);
    this.windows = new SharedWindows(redis, this.layout.prefix);
    this.drain = new Drain(redis, knex, this.layout);
    this.admitter = new Admitter(
      redis,
      this.layout,
      cluster,
      async (acc) => void (await this.wallets.init(acc)),
      (marks, planId) => {
        if (this.pending.size < MAX_PENDING_RELEASES) this.pending.set(planId, marks);
        else this.warn(new Error(planId), 'shared store: too many unanswered admissions; one stays counted');
      },
      this.clock,
      () =>
        void this.rebuild().catch((err: unknown) => this.warn(err, 'shared store: counter rebuild failed')),
    );
    this.bus = new InvalidationBus(
      redis,
      this.layout.channel,
      (m) => this.cache.invalidate(m),
      (err) => this.warn(err, 'shared store: invalidation channel'),
    );
  }

  /**
   * Connect to both databases. Each must answer within 3 s, else opening fails with a StoreUnavailableError naming
   * the unreachable one(s), after releasing every connection, timer and pool (a process can then exit by itself).
   */
  static async open(opts: SharedStoreOptions): Promise<SharedStore> {
    const timeout = opts.reservationTimeoutMs;
    if (timeout !== undefined && !(timeout > 0 && timeout < MARK_TTL_S * 1000)) {
      throw new RangeError(
        `store.reservationTimeoutMs must be above 0 and below ${MARK_TTL_S * 1000} (the marks' TTL)`,
      );
    }
    const { client, cluster } = connectRedis(opts.redis);
    const knex = openPostgres(opts.postgres);
    const store = new SharedStore(client, knex, cluster, opts);
    try {
      await requireReachable(client, knex, opts);
      await store.bus.start();
    } catch (err) {
      await store.close();
      throw err;
    }
    store.timer = setInterval(() => void store.background(), opts.drainIntervalMs ?? 250);
    store.timer.unref();
    store.startSweeper();
    return store;
  }

  /**
   * Restore the daily counters of shards whose Redis lost them (restarted empty) from PostgreSQL, before admissions
   * in those shards resume (rebuild.ts). Runs on open and when an admission finds a shard not ready; one at a time.
   * Resolves to how many shards were rebuilt.
   */
  rebuild(): Promise<number> {
    if (this.rebuilding) return this.rebuilding;
    const run = rebuildCounters(this.redis, this.knex, this.layout, this.clock.now()).finally(
      () => (this.rebuilding = null),
    );
    this.rebuilding = run;
    return run;
  }

  /** With a reservation timeout: sweep now (start-up) and periodically. */
  private startSweeper(): void {
    const timeout = this.opts.reservationTimeoutMs;
    if (timeout === undefined) return;
    const every = this.opts.sweepIntervalMs ?? Math.min(10_000, Math.max(250, Math.floor(timeout / 4)));
    const run = () =>
      void this.sweep().catch((err: unknown) => this.warn(err, 'shared store: sweeper failed; retrying'));
    run();
    this.sweepTimer = setInterval(run, every);
    this.sweepTimer.unref();
  }

  /**
   * Release admissions in flight longer than the reservation timeout (crashed instances'); one sweep at a time.
   * Resolves to how many admission steps were released. No timeout configured: nothing to do (0).
   */
  sweep(): Promise<number> {
    const timeout = this.opts.reservationTimeoutMs;
    if (timeout === undefined) return Promise.resolve(0);
    if (this.sweeping) return this.sweeping;
    const run = this.keeper.sweep(timeout).finally(() => (this.sweeping = null));
    this.sweeping = run;
    return run;
  }

  private warn(err: unknown, msg: string): void {
    this.opts.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg);
  }

  /** Drain the event streams and release admissions whose outcome was unknown. */
  private async background(): Promise<void> {
    const err = await this.drain.tick();
    // Log state changes only: a PostgreSQL outage must not log four lines a second.
    if (err && !this.drainFailing) this.warn(err, 'shared store: ledger drain failing; retrying every tick');
    if (!err && this.drainFailing) this.warn({ message: 'ok' }, 'shared store: ledger drain recovered');
    this.drainFailing = err !== null;
    await this.releasePending();
  }

  /**
   * Release now the admissions whose answer was lost while Redis was unreachable (the background does it every
   * drain tick); stops at the first failure. Resolves to how many are still pending.
   */
  async releasePending(): Promise<number> {
    for (const [planId, marks] of this.pending) {
      try {
        await this.admitter.releaseMarks(planId, marks);
        this.pending.delete(planId);
      } catch {
        break;
      }
    }
    return this.pending.size;
  }

  async migrate(): Promise<void> {
    try {
      await runMigrations(this.knex);
      await ensureDrainTable(this.knex);
    } catch (err) {
      throw pgFault(err);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    // Unreachable Redis: nothing can be kept or drained, and waiting would only delay the release of the handles.
    if (this.redis.status === 'ready') {
      await this.keeper.settle(); // keeps still batched (keeper.ts DEFER_MS)
      await this.drain.flush().catch(() => undefined);
    }
    await this.bus.stop();
    this.redis.disconnect();
    await this.knex.destroy();
  }

  isUnavailable(err: unknown): boolean {
    return isStoreUnavailable(err);
  }

  /** Both databases answer (for /readyz). */
  async readiness(): Promise<Record<string, boolean>> {
    const within = <T>(p: Promise<T>) =>
      Promise.race([
        p.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 1_000).unref()),
      ]).catch(() => false);
    const [redis, postgres] = await Promise.all([
      within(this.redis.ping().then(() => this.countersInPlace())),
      within(this.knex.raw('SELECT 1')),
    ]);
    return { redis, postgres };
  }

  /** Throws while a shard's counters are missing (Redis restarted empty), and starts their rebuild. */
  private async countersInPlace(): Promise<void> {
    if ((await shardsNotReady(this.redis, this.layout)).length === 0) return;
    void this.rebuild().catch((err: unknown) => this.warn(err, 'shared store: counter rebuild failed'));
    throw new Error('counters are being rebuilt');
  }

  private async pg<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const fault = pgFault(err);
      if (fault instanceof StoreUnavailableError) this.pgDownUntil = this.clock.now() + PG_BREAKER_MS;
      throw fault;
    }
  }

  /**
   * An identification read: while PostgreSQL was just found unreachable, fail at once so the cache serves its
   * stale entry without waiting for a connect timeout on every request.
   */
  private async pgLookup<T>(fn: () => Promise<T>): Promise<T> {
    if (this.clock.now() < this.pgDownUntil) {
      throw new StoreUnavailableError('postgres', 'unreachable a moment ago; retrying shortly');
    }
    return this.pg(fn);
  }

  private async changed(msg: Invalidation): Promise<void> {
    this.cache.invalidate(msg);
    await this.bus.publish(msg);
  }

  /* --- identification --- */

  /** Key identity cache lookups so far (read by the metrics at each scrape). */
  identityCacheStats(): { hits: number; misses: number } {
    return this.cache.stats;
  }

  async findKeyByHash(hash: string): Promise<KeyIdentity | null> {
    return this.cache.key(hash, () =>
      this.pgLookup(async () => {
        const row = await this.knex
          .select('a.*', ...KEY_COLUMNS.map((c) => `k.${c} as k_${c}`))
          .from('api_keys as k')
          .join('accounts as a', 'a.id', 'k.account_id')
          .where('k.hash', hash)
          .first();
        return row ? toKeyIdentity(row) : null;
      }),
    );
  }

  async findWhitelistedAccount(address: string): Promise<Account | null> {
    const k = addressKey(address);
    if (!k) return null;
    const blocks = await this.cache.blocks(() =>
      this.pgLookup(async () => {
        const rows = await this.knex('whitelist').select('family', 'range_start', 'range_end', 'account_id');
        return rows.map((r: Record<string, unknown>): WhitelistBlock => ({
          family: Number(r.family),
          start: String(r.range_start),
          end: String(r.range_end),
          accountId: String(r.account_id),
        }));
      }),
    );
    let best: WhitelistBlock | null = null;
    for (const b of blocks) {
      if (b.family === k.family && b.start <= k.hex && b.end >= k.hex && (!best || b.start > best.start))
        best = b;
    }
    if (!best) return null;
    const id = best.accountId;
    return this.cache.account(id, () => this.pgLookup(async () => this.accountRow(id)));
  }

  private async accountRow(id: string): Promise<Account | null> {
    const row = await this.knex('accounts').where({ id }).first();
    return row ? toAccount(row) : null;
  }

  /* --- admission --- */

  admit(plan: AdmissionPlan): Promise<AdmissionResult> {
    return this.admitter.admit(plan);
  }

  release(ticket: Ticket): Promise<void> {
    return this.admitter.release(ticket);
  }

  keep(ticket: Ticket): Promise<void> {
    return this.keeper.keep(ticket.planId, sharedUndo(ticket, 'keep').marks);
  }

  async recordRefusal(subjects: string[], day: string): Promise<void> {
    const first = subjects[0];
    if (first === undefined) return;
    const stream = this.layout.stream(shardOf(first));
    try {
      await this.redis.xadd(
        stream,
        '*',
        't',
        'ref',
        'e',
        `ref:${newOrderedId('led')}`,
        'd',
        day,
        'u',
        subjects.join(' '),
      );
    } catch (err) {
      throw redisFault(err);
    }
  }

  /* --- management --- */

  /** An account with its spendable balance (the Redis wallet when initialised; else the drained ledger sum). */
  private async withBalance(account: Account): Promise<Account> {
    try {
      const b = await this.wallets.balance(account.id);
      return b === null ? account : { ...account, balance: b };
    } catch (err) {
      if (err instanceof StoreUnavailableError) return account; // Redis down: the drained balance is all we have
      throw err;
    }
  }

  async createAccount(input: NewAccount, now: number): Promise<Account> {
    return this.pg(() => pga.createAccount(this.knex, input, now));
  }

  async getAccount(id: string): Promise<Account | null> {
    const a = await this.pg(() => this.accountRow(id));
    return a ? this.withBalance(a) : null;
  }

  async findAccountByEmail(email: string): Promise<Account | null> {
    const row = await this.pg(() =>
      this.knex('accounts')
        .where({ email_norm: normaliseEmail(String(email)) })
        .first(),
    );
    return row ? this.withBalance(toAccount(row)) : null;
  }

  private async updateAccount(
    id: string,
    column: 'status' | 'unlimited_until' | 'password_hash',
    value: string | number | null,
  ): Promise<Account> {
    const a = await this.pg(() => pga.updateAccount(this.knex, id, column, value));
    await this.changed({ k: 'account', id });
    return this.withBalance(a);
  }

  setAccountStatus(id: string, status: AccountStatus): Promise<Account> {
    return this.updateAccount(id, 'status', status);
  }

  setUnlimitedUntil(id: string, until: number | null): Promise<Account> {
    return this.updateAccount(id, 'unlimited_until', until);
  }

  async setPasswordHash(id: string, hash: string): Promise<void> {
    await this.updateAccount(id, 'password_hash', hash);
  }

  async setEmail(id: string, email: string): Promise<Account> {
    const a = await this.pg(() => pga.setEmail(this.knex, id, email));
    await this.changed({ k: 'account', id });
    return this.withBalance(a);
  }

  async credit(
    accountId: string,
    amount: number,
    idempotencyKey: string | null,
    now: number,
  ): Promise<{ entry: LedgerEntry; balance: number; replayed: boolean }> {
    requireUnits('amount', amount);
    const account = await this.pg(() => pga.requireLiveAccount(this.knex, accountId));
    if (idempotencyKey !== null) {
      const prior = await this.pg(() =>
        this.knex('ledger').where({ account_id: accountId, ref: idempotencyKey }).first(),
      );
      if (prior) {
        const entry = toLedger(prior);
        requireSameTopup(entry, amount);
        return { entry, balance: (await this.withBalance(account)).balance, replayed: true };
      }
    }
    const result = await this.wallets.credit(accountId, amount, idempotencyKey, now);
    await this.settleLedger();
    // Cached identities carry the drained balance: drop them so the top-up shows.
    await this.changed({ k: 'account', id: accountId });
    return result;
  }

  /** Write pending events to the ledger now (best effort: the background drain retries). */
  private async settleLedger(): Promise<void> {
    await this.drain.flush().catch((err: unknown) => this.warn(err, 'shared store: ledger drain will retry'));
  }

  async buyPackage(
    accountId: string,
    price: number,
    input: NewKey,
    now: number,
  ): Promise<{ key: ApiKey; balance: number }> {
    requireUnits('price', price);
    requireKeyOfAccount(accountId, input);
    const key = await this.pg(() => pga.insertKey(this.knex, input, now));
    let balance: number | false;
    try {
      balance = await this.wallets.debit(accountId, price, key.id, now);
    } catch (err) {
      await this.knex('api_keys')
        .where({ id: key.id })
        .delete()
        .catch(() => undefined);
      throw err;
    }
    if (balance === false) {
      await this.pg(() => this.knex('api_keys').where({ id: key.id }).delete());
      throw new StoreConflict('insufficient_balance', 'the balance does not cover the package');
    }
    await this.settleLedger();
    await this.changed({ k: 'key', hash: input.hash });
    await this.changed({ k: 'account', id: accountId });
    return { key, balance };
  }

  async createKey(input: NewKey, now: number): Promise<ApiKey> {
    const key = await this.pg(() => pga.insertKey(this.knex, input, now));
    await this.changed({ k: 'key', hash: input.hash });
    return key;
  }

  async getKey(id: string): Promise<ApiKey | null> {
    const row = await this.pg(() => this.knex('api_keys').where({ id }).first());
    return row ? toKey(row) : null;
  }

  listAccounts(query: AccountQuery): Promise<Account[]> {
    return this.pg(() => listing.listAccounts(this.knex, query, (a) => this.withBalance(a)));
  }

  listKeyPage(query: KeyQuery): Promise<ApiKey[]> {
    return this.pg(() => listing.listKeyPage(this.knex, query));
  }

  listKeys(accountId: string): Promise<ApiKey[]> {
    return this.pg(() => pga.listKeys(this.knex, accountId));
  }

  async revokeKey(id: string, now: number): Promise<ApiKey> {
    const { key, hash } = await this.pg(() => pga.revokeKey(this.knex, id, now));
    await this.changed({ k: 'key', hash });
    return key;
  }

  async setKeyLabel(id: string, label: string | null): Promise<ApiKey> {
    const { key, hash } = await this.pg(() => pga.setKeyLabel(this.knex, id, label));
    // Instances that cached the key's identity (with its label) drop it, as after a revocation.
    await this.changed({ k: 'key', hash });
    return key;
  }

  async listSlots(
    scope: string,
    mode: 'fixed' | 'sliding',
    windowMs: number,
    now: number,
  ): Promise<SlotView[]> {
    let all: Record<string, string>;
    try {
      all = await this.redis.hgetall(this.layout.slots(scope));
    } catch (err) {
      throw redisFault(err);
    }
    const entries = Object.entries(all).map(([member, v]) => {
      const [firstSeen, lastSeen] = v.split(':').map(Number) as [number, number];
      return { member, firstSeen, lastSeen };
    });
    return liveSlots(entries, mode, windowMs, now);
  }

  async addWhitelist(accountId: string, cidr: string, now: number): Promise<WhitelistEntry> {
    const entry = await this.pg(() => pga.addWhitelist(this.knex, accountId, cidr, now));
    await this.changed({ k: 'whitelist' });
    return entry;
  }

  async removeWhitelist(accountId: string, entryId: string): Promise<void> {
    await this.pg(() => pga.removeWhitelist(this.knex, accountId, entryId));
    await this.changed({ k: 'whitelist' });
  }

  listWhitelist(accountId: string): Promise<WhitelistEntry[]> {
    return this.pg(() => pga.listWhitelist(this.knex, accountId));
  }

  async usage(subjects: string[], fromDay: string, toDay: string): Promise<UsageRow[]> {
    if (subjects.length === 0) return [];
    await this.flushForRead();
    const rows = await this.pg(() =>
      this.knex('usage_daily')
        .whereIn('subject', subjects)
        .andWhere('day', '>=', fromDay)
        .andWhere('day', '<=', toDay)
        .orderBy([{ column: 'day' }, { column: 'subject' }]),
    );
    return rows.map(toUsage);
  }

  async ledger(accountId: string, limit: number, before?: string): Promise<LedgerEntry[]> {
    requireLimit(limit);
    await this.pg(() => pga.requireAccount(this.knex, accountId));
    await this.flushForRead();
    const rows = await this.pg(() => {
      const q = this.knex('ledger').where({ account_id: accountId });
      if (before !== undefined)
        q.where('seq', '<', this.knex('ledger').select('seq').where({ id: before, account_id: accountId }));
      return q.orderBy('seq', 'desc').limit(limit);
    });
    return rows.map(toLedger);
  }

  consumeOnce(id: string, expiresAt: number, now: number): Promise<boolean> {
    return this.pg(() => this.marks.consumeOnce(id, expiresAt, now));
  }

  isConsumed(id: string, now: number): Promise<boolean> {
    return this.pg(() => this.marks.isConsumed(id, now));
  }

  hitWindow(name: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    return this.windows.hitWindow(name, windowMs, now);
  }

  /* --- receipts (issue 15 item 3; receipts.ts) --- */
  getBilling(accountId: string): Promise<BillingDetails> {
    return this.pg(() => receipts.getBilling(this.knex, accountId));
  }

  setBilling(accountId: string, billing: BillingDetails, now: number): Promise<BillingDetails> {
    return this.pg(() => receipts.setBilling(this.knex, accountId, billing, now));
  }

  async creditWithReceipt(
    accountId: string,
    amount: number,
    idempotencyKey: string | null,
    now: number,
    input: ReceiptInput,
  ): Promise<{ entry: LedgerEntry; balance: number; replayed: boolean; receipt: Receipt }> {
    requireReceiptInput(input);
    const r = await this.credit(accountId, amount, idempotencyKey, now);
    const src = { accountId, sourceId: r.entry.id, kind: 'topup' as const, amount, now: r.entry.createdAt };
    const receipt = await this.pg(() => receipts.issue(this.knex, src, input));
    return { ...r, receipt };
  }

  async buyPackageWithReceipt(
    accountId: string,
    price: number,
    key: NewKey,
    now: number,
    input: ReceiptInput,
  ): Promise<{ key: ApiKey; balance: number; receipt: Receipt }> {
    requireReceiptInput(input);
    const r = await this.buyPackage(accountId, price, key, now);
    const src = { accountId, sourceId: r.key.id, kind: 'package' as const, amount: price, now };
    const receipt = await this.pg(() => receipts.issue(this.knex, src, input));
    return { ...r, receipt };
  }

  listReceipts(accountId: string, limit: number, before?: string): Promise<Receipt[]> {
    return this.pg(() => receipts.listReceipts(this.knex, accountId, limit, before));
  }

  getReceipt(accountId: string, number: string): Promise<Receipt | null> {
    return this.pg(() => receipts.getReceipt(this.knex, accountId, number));
  }

  async refundTopUp(input: RefundInput, now: number): Promise<RefundResult> {
    const deps = {
      knex: this.knex,
      redis: this.redis,
      layout: this.layout,
      initWallet: (accountId: string) => this.wallets.init(accountId),
      pg: <T>(fn: () => Promise<T>) => this.pg(fn),
    };
    const r = await refunds.refundTopUp(deps, input, now);
    if (r.status === 'applied' && r.accountId !== null) {
      await this.settleLedger();
      // Cached identities carry the drained balance: drop them so the refund shows.
      await this.changed({ k: 'account', id: r.accountId });
    }
    return r;
  }

  /** Before a history read: drain pending events (Redis down: read what PostgreSQL has). */
  private async flushForRead(): Promise<void> {
    try {
      await this.drain.flush();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError && err.backend === 'redis')) throw err;
    }
  }

  /* ================= notifications (issue 15 item 2; shared/notifications.ts) ================= */
  notificationSettings(accountId: string): Promise<NotificationSettings> {
    return this.pg(() => this.notices.settings(accountId));
  }
  setNotificationSettings(
    accountId: string,
    emailAlerts: boolean,
    threshold: number | null,
  ): Promise<NotificationSettings> {
    return this.pg(() => this.notices.setSettings(accountId, emailAlerts, threshold));
  }
  async lowBalanceWatch(after: string | null, limit: number): Promise<NotificationSettings[]> {
    const n = watchPageSize(limit);
    return this.pg(() => this.notices.watched(after, n));
  }
  armLowBalance(accountId: string, seq: number, armed: boolean): Promise<boolean> {
    return this.pg(() => this.notices.arm(accountId, seq, armed));
  }
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    return this.pg(() => this.notices.endpoints(accountId));
  }
  addWebhookEndpoint(
    accountId: string,
    url: string,
    secret: string,
    max: number,
    now: number,
  ): Promise<WebhookEndpoint | null> {
    return this.pg(() => this.notices.addEndpoint(accountId, url, secret, max, now));
  }
  removeWebhookEndpoint(accountId: string, id: string): Promise<boolean> {
    return this.pg(() => this.notices.removeEndpoint(accountId, id));
  }
  recordNotification(event: NotificationEvent, deliveries: NewDelivery[]): Promise<boolean> {
    return this.pg(() => this.notices.record(event, deliveries));
  }
  claimDeliveries(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    return this.pg(() => this.notices.claim(owner, now, leaseMs, limit));
  }
  finishDelivery(id: string, owner: string, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean> {
    return this.pg(() => this.notices.finish(id, owner, attempt, next));
  }
  deliveryLog(accountId: string, limit: number): Promise<DeliveryLogEntry[]> {
    return this.pg(() => this.notices.log(accountId, limit));
  }
  unlimitedEnding(from: number, to: number): Promise<UnlimitedEnding[]> {
    return this.pg(() => this.notices.ending(from, to));
  }
  pruneNotifications(before: number): Promise<number> {
    return this.pg(() => this.notices.prune(before));
  }

  /* --- key restrictions (issue 15 item 4) --- */
  async setKeyRestrictions(id: string, restrictions: KeyRestrictions | null): Promise<ApiKey> {
    const { key, hash } = await this.pg(() => setKeyRestrictions(this.knex, id, restrictions));
    // The same invalidation as a revocation: every instance drops the key's cached identity at once (D19).
    await this.changed({ k: 'key', hash });
    return key;
  }

  /* --- account lifecycle (issue 15 item 1; account-lifecycle.ts) --- */
  async markEmailVerified(id: string, now: number): Promise<Account> {
    const a = await this.pg(() => lifecycle.markEmailVerified(this.knex, id, now));
    await this.changed({ k: 'account', id });
    return this.withBalance(a);
  }

  /**
   * PostgreSQL first (keys revoked, data erased, one transaction), then Redis (balance forfeited, slots dropped) and
   * the invalidations that stop every instance's cached key identities within the bus's delay. A Redis fault after
   * the commit leaves the forfeit undone: calling again on the deleted account finishes it, then answers
   * account_deleted.
   */
  async deleteAccount(
    id: string,
    tombstone: string,
    now: number,
  ): Promise<{ account: Account; forfeited: number }> {
    let erased: lifecycle.Erased;
    try {
      erased = await this.pg(() => lifecycle.erasePg(this.knex, id, tombstone, now));
    } catch (err) {
      if (err instanceof StoreConflict && err.reason === 'account_deleted') {
        await lifecycle.forfeitWallet(this.redis, this.layout, (a) => this.wallets.init(a), id, now);
        await this.settleLedger();
      }
      throw err;
    }
    for (const k of erased.keys) await this.changed({ k: 'key', hash: k.hash });
    await this.changed({ k: 'account', id });
    await this.changed({ k: 'whitelist' });
    const forfeited = await lifecycle.forfeitWallet(
      this.redis,
      this.layout,
      (a) => this.wallets.init(a),
      id,
      now,
    );
    await lifecycle.dropSlots(
      this.redis,
      this.layout,
      id,
      erased.keys.map((k) => k.id),
    );
    await this.settleLedger();
    return { account: { ...erased.account, balance: 0 }, forfeited };
  }
}

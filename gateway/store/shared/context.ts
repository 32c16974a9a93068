/**
 * What every part of the shared store shares: the two connections, the key layout, the identification cache and its
 * invalidation bus, the wallets, the ledger drain, and the PostgreSQL fault breaker. One per store (store.ts).
 */
import type { Knex } from 'knex';
import type { Clock } from '../../core/clock';
import { toAccount } from '../rows';
import type { Account } from '../types';
import { InvalidationBus } from './bus';
import { IdentityCache, type Invalidation } from './cache';
import { Drain } from './drain';
import { pgFault, StoreUnavailableError } from './errors';
import { Layout } from './layout';
import { LeaseHolder } from './lease/holder';
import type { LeaseOptions } from './lease/options';
import { rebuildCounters } from './rebuild';
import type { RedisClient } from './redis-client';
import { Wallets } from './wallet';

/** After a PostgreSQL connection failure, identification reads fail fast (serving the cache) for this long. */
const PG_BREAKER_MS = 1_000;

/** The shared store's logger. */
export interface SharedLogger {
  warn(o: object, msg?: string): void;
  error(o: object, msg?: string): void;
}

/** The connections and helpers of one shared store. */
export class SharedContext {
  readonly layout: Layout;
  readonly cache: IdentityCache;
  readonly bus: InvalidationBus;
  readonly wallets: Wallets;
  readonly drain: Drain;
  /** This instance's credit leases (D33), or null when leases are off (`store.leases: false`). */
  readonly leases: LeaseHolder | null;
  private pgDownUntil = 0;
  private rebuilding: Promise<number> | null = null;

  constructor(
    readonly redis: RedisClient,
    readonly knex: Knex,
    readonly cluster: boolean,
    readonly clock: Clock,
    keyPrefix: string,
    cacheTtlMs: number,
    private readonly logger: SharedLogger | undefined,
    leases: Partial<LeaseOptions> | false = {},
  ) {
    this.layout = new Layout(keyPrefix);
    this.cache = new IdentityCache(cacheTtlMs, clock);
    this.wallets = new Wallets(redis, knex, this.layout, clock);
    this.drain = new Drain(redis, knex, this.layout);
    this.leases =
      leases === false
        ? null
        : new LeaseHolder(redis, this.layout, cluster, clock, (e, m) => this.warn(e, m), leases, {
            drained: (ids) => this.drainedIds(keyPrefix, ids),
            initWallet: async (id) => void (await this.wallets.init(id)),
          });
    this.bus = new InvalidationBus(
      redis,
      this.layout.channel,
      (m) => this.invalidate(m),
      (err) => this.warn(err, 'shared store: invalidation channel'),
    );
  }

  /** Log a warning with the error's message only. */
  warn(err: unknown, msg: string): void {
    this.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, msg);
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

  /** Run a PostgreSQL operation; a connection failure becomes StoreUnavailableError and opens the breaker. */
  async pg<T>(fn: () => Promise<T>): Promise<T> {
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
  async pgLookup<T>(fn: () => Promise<T>): Promise<T> {
    if (this.clock.now() < this.pgDownUntil) {
      throw new StoreUnavailableError('postgres', 'unreachable a moment ago; retrying shortly');
    }
    return this.pg(fn);
  }

  /**
   * Which lease charge events (their ids) the drain has written to PostgreSQL: the drain records `<prefix>adm:<id>` in
   * shared_drained in the transaction that applies the event (drain-apply.ts).
   */
  private async drainedIds(prefix: string, ids: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const marks = ids.map((id) => `${prefix}adm:${id}`);
    for (let i = 0; i < marks.length; i += 5_000) {
      const rows = await this.pg(() =>
        this.knex('shared_drained')
          .whereIn('event_id', marks.slice(i, i + 5_000))
          .select('event_id'),
      );
      for (const r of rows as { event_id: string }[]) out.add(r.event_id.slice(prefix.length + 4));
    }
    return out;
  }

  /** Drop cached identities and return the leases a change touches (D33: a key's account's, within a second). */
  private invalidate(msg: Invalidation): void {
    const leases = this.leases;
    if (leases !== null) {
      const accountId = msg.k === 'key' ? this.cache.accountOfKey(msg.hash) : null;
      if (msg.k !== 'key') leases.invalidated(msg);
      else if (accountId !== null) leases.invalidated({ k: 'account', id: accountId });
    }
    this.cache.invalidate(msg);
  }

  /** Drop cached identities here and on every instance (the bus). */
  async changed(msg: Invalidation): Promise<void> {
    this.invalidate(msg);
    await this.bus.publish(msg);
  }

  /** The account row, or null. */
  async accountRow(id: string): Promise<Account | null> {
    const row = await this.knex('accounts').where({ id }).first();
    return row ? toAccount(row) : null;
  }

  /**
   * An account with its spendable balance (the Redis wallet when initialised, less what this instance's leases spent
   * and have not posted yet; else the drained ledger sum). Other instances' unposted spending shows within a flush.
   */
  async withBalance(account: Account): Promise<Account> {
    try {
      const b = await this.wallets.balance(account.id);
      const owed = this.leases?.owed(account.id) ?? 0;
      return b === null ? account : { ...account, balance: b - owed };
    } catch (err) {
      if (err instanceof StoreUnavailableError) return account; // Redis down: the drained balance is all we have
      throw err;
    }
  }

  /** Write pending events to the ledger now (best effort: the background drain retries). */
  async settleLedger(): Promise<void> {
    await this.leases
      ?.flushForRead()
      .catch((err: unknown) => this.warn(err, 'shared store: lease flush will retry'));
    await this.drain.flush().catch((err: unknown) => this.warn(err, 'shared store: ledger drain will retry'));
  }

  /** Before a history read: drain pending events (Redis down: read what PostgreSQL has). */
  async flushForRead(): Promise<void> {
    try {
      await this.leases?.flushForRead();
      await this.drain.flush();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError && err.backend === 'redis')) throw err;
    }
  }
}

/**
 * The shared store (docs/shared-state.md): PostgreSQL holds accounts, keys, whitelist, plans, the ledger and the
 * usage history; Redis holds the hot state (daily counters, IP slots, account address sets, balances being spent).
 * Several gateway instances on one shared store behave as one gateway. One part per port (port-*.ts), composed here.
 */
import type { Knex } from 'knex';
import { systemClock, type Clock } from '../../core/clock';
import { ComposedStore, type StoreParts } from '../compose';
import { KnexConsoleStore } from '../console-store';
import { SharedContext } from './context';
import type { Drain } from './drain';
import type { Layout } from './layout';
import { openPostgres } from './pg';
import { SharedAccounts } from './port-accounts';
import { SharedAdmission } from './port-admission';
import { SharedBilling } from './port-billing';
import { SharedKeys } from './port-keys';
import { SharedLifecycle } from './port-lifecycle';
import { SharedMarkStore } from './port-marks';
import { SharedNotificationStore } from './port-notifications';
import { SharedAutoTopUps } from './auto-topup';
import { SharedSecurity } from './security';
import { requireReachable } from './probe';
import { connectRedis, type RedisClient } from './redis-client';
import { MARK_TTL_S } from './step';
import type { LeaseOptions } from './lease/options';
import type { LeaseHolder } from './lease/holder';

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
  /**
   * Credit leases (D33; lease/options.ts for the keys and D33's defaults): on by default (absent, true, or an object
   * of the constants to change); false turns them off, and every admission asks Redis.
   */
  leases?: Partial<LeaseOptions> | boolean;
  logger?: { warn(o: object, msg?: string): void; error(o: object, msg?: string): void };
  /**
   * The gateway's clock (default: system): cache lifetimes, the PostgreSQL breaker, wallet and release event times.
   * The drain's bookkeeping of Redis stream ids stays on wall time (it pairs with Redis's own time, not with rules).
   */
  clock?: Clock;
}

/** The parts of one shared store over its connections. */
function build(redis: RedisClient, knex: Knex, cluster: boolean, opts: SharedStoreOptions) {
  const clock = opts.clock ?? systemClock;
  const prefix = opts.keyPrefix ?? 'geogate:';
  const c = new SharedContext(
    redis,
    knex,
    cluster,
    clock,
    prefix,
    opts.cacheTtlMs ?? 5_000,
    opts.logger,
    opts.leases === undefined || opts.leases === true ? {} : opts.leases,
  );
  const admission = new SharedAdmission(c);
  const lifecycle = new SharedLifecycle(c, admission, opts);
  const parts: StoreParts = {
    admission,
    accounts: new SharedAccounts(c),
    keys: new SharedKeys(c),
    billing: new SharedBilling(c),
    notifications: new SharedNotificationStore(c),
    marks: new SharedMarkStore(c),
    console: new KnexConsoleStore(
      knex,
      (fn) => c.pg(fn),
      () => c.flushForRead(),
    ),
    autoTopUp: new SharedAutoTopUps(c),
    security: new SharedSecurity(c),
    lifecycle,
  };
  return { c, admission, lifecycle, parts };
}

/** The Store on PostgreSQL + Redis. Open with SharedStore.open, then migrate(). */
export class SharedStore extends ComposedStore {
  readonly layout: Layout;
  readonly cluster: boolean;
  readonly drain: Drain;
  readonly redis: RedisClient;
  readonly knex: Knex;
  private readonly context: SharedContext;
  private readonly admission: SharedAdmission;
  private readonly lifecycle: SharedLifecycle;

  private constructor(redis: RedisClient, knex: Knex, cluster: boolean, opts: SharedStoreOptions) {
    const built = build(redis, knex, cluster, opts);
    super(built.parts);
    this.context = built.c;
    this.admission = built.admission;
    this.lifecycle = built.lifecycle;
    this.redis = redis;
    this.knex = knex;
    this.cluster = cluster;
    this.layout = built.c.layout;
    this.drain = built.c.drain;
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
      await store.context.bus.start();
    } catch (err) {
      await store.close();
      throw err;
    }
    store.lifecycle.start();
    return store;
  }

  /** Restore the daily counters Redis lost from PostgreSQL (SharedContext.rebuild); how many shards. */
  rebuild(): Promise<number> {
    return this.context.rebuild();
  }

  /** Release admissions in flight longer than the reservation timeout (SharedLifecycle.sweep); how many. */
  sweep(): Promise<number> {
    return this.lifecycle.sweep();
  }

  /** This instance's credit leases (D33), null when off: their counters (metrics) and flush. */
  get leases(): LeaseHolder | null {
    return this.context.leases;
  }

  /** Release now the admissions whose answer was lost while Redis was unreachable; how many are still pending. */
  releasePending(): Promise<number> {
    return this.admission.releasePending();
  }
}

/**
 * The embedded store: SQLite through one better-sqlite3 connection. Admissions run as prepared statements in
 * synchronous IMMEDIATE transactions, grouped per event-loop turn (group-commit.ts) and committed before their promises
 * resolve; knex, on the same connection, runs the shared migrations. Every write is a synchronous transaction, so
 * there is one writer and nothing interleaves with an admission.
 */
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import type { StoreDeps } from '../index';
import { systemClock, type Clock } from '../../core/clock';
import { normaliseEmail } from '../checks';
import { isStoreUnavailable } from '../faults';
import { runMigrations } from '../migrations';
import { addressKey } from '../ranges';
import { toAccount, toKey } from '../rows';
import type {
  Account,
  AccountStatus,
  AdmissionPlan,
  AdmissionResult,
  ApiKey,
  KeyIdentity,
  KeyRestrictions,
  LedgerEntry,
  NewAccount,
  NewKey,
  SlotView,
  Ticket,
  UsageRow,
  WhitelistEntry,
} from '../types';
import type { Store } from '../ports';
import * as accounts from './accounts';
import {
  admissionsMark,
  admitInTransaction,
  asEmbeddedUndo,
  releaseInTransaction,
  type ReleaseMark,
} from './admission';
import { prepareHot, type HotStatements } from './hot-statements';
import * as keys from './keys';
import * as listing from './listing';
import type { AccountQuery, KeyQuery } from '../listing';
import { Checkpointer, checkpointWarning } from './checkpointer';
import { GroupCommit } from './group-commit';
import { InflightLog } from './inflight';
import { KeyCache } from './key-cache';
import { BUSY_TIMEOUT_MS, knexOnDatabase, openDatabase } from './open';
import { Pruner } from './prune';
import { EmbeddedMarks } from './single-use';
import { EmbeddedWindows } from './throttle';
import { UsageFold } from './usage-fold';
import * as reports from './reports';
import * as receipts from './receipts';
import * as refunds from './refunds';
import type { RefundInput, RefundResult } from '../refunds';
import type { BillingDetails, Receipt, ReceiptInput } from '../receipts';
import * as whitelist from './whitelist';
import { EmbeddedNotifications } from './notifications';
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
import { setKeyRestrictions } from './restrictions';
import * as lifecycle from './account-lifecycle';

/** The Store on a SQLite file (or ":memory:"). Call migrate() before use (createStore does). */
export class EmbeddedStore implements Store {
  readonly db: Database.Database;
  private readonly knex: Knex;
  private hot: HotStatements | null = null;
  private marks: EmbeddedMarks | null = null;
  private windows: EmbeddedWindows | null = null;
  private batcher: GroupCommit<AdmissionPlan, AdmissionResult> | null = null;
  private readonly pruner: Pruner;
  private lastNow = 0;

  private inflight: InflightLog | null = null;
  /** The release mark: the in-flight log when crash recovery is on, else the admissions table. */
  private mark: ReleaseMark | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private checkpointer: Checkpointer | null = null;
  private readonly keyCache = new KeyCache();
  private notices: EmbeddedNotifications | null = null;

  /**
   * `opts.reservationTimeoutMs` turns on crash recovery (inflight.ts): admissions neither kept nor released within
   * it are released on start-up (migrate) and every quarter of it (at most 10 s), by `opts.clock`.
   */
  constructor(
    path: string,
    private readonly logger?: StoreDeps['logger'],
    private readonly opts: {
      reservationTimeoutMs?: number;
      clock?: Clock;
      /** WAL checkpoints from a worker thread instead of inside a commit (default on for a file; checkpointer.ts). */
      backgroundCheckpoints?: boolean;
      /** Other processes write the same file (`workers`): admissions retry a locked file without blocking. */
      sharedByProcesses?: boolean;
      /**
       * Another process checkpoints this file (`workers`: the cluster primary, one checkpointer for all workers;
       * store/index.ts `checkpointFile`): no automatic checkpoint inside a commit and no checkpointer thread here.
       */
      checkpointedElsewhere?: boolean;
    } = {},
  ) {
    this.db = openDatabase(path);
    this.knex = knexOnDatabase(this.db);
    this.pruner = new Pruner(this.db);
    const elsewhere = opts.checkpointedElsewhere === true;
    if (path !== ':memory:' && (elsewhere || opts.backgroundCheckpoints !== false)) {
      this.db.pragma('wal_autocheckpoint = 0');
      if (!elsewhere) this.checkpointer = new Checkpointer(path, checkpointWarning(this.logger));
    }
  }

  async migrate(): Promise<void> {
    await runMigrations(this.knex);
    const st = prepareHot(this.db);
    this.hot = st;
    this.marks = new EmbeddedMarks(this.db);
    const log = this.opts.reservationTimeoutMs !== undefined ? new InflightLog(this.db) : null;
    this.inflight = log;
    const mark = log ?? admissionsMark(st);
    this.mark = mark;
    this.windows = new EmbeddedWindows(this.db);
    this.notices = new EmbeddedNotifications(this.db);
    const usage = new UsageFold(this.db);
    const one = (plan: AdmissionPlan) => {
      this.lastNow = plan.now;
      const at = usage.mark();
      try {
        return admitInTransaction(st, plan, mark, usage);
      } catch (err) {
        usage.rollback(at); // the admission is rolled back to its savepoint (or its whole transaction is)
        throw err;
      }
    };
    const prune = () => this.pruner.maybePrune(this.lastNow);
    const onError = (err: unknown) => this.logger?.error({ err }, 'embedded store: pruning failed');
    // Other processes, or the checkpointer's WAL restarts, take the write lock: batches retry instead of blocking.
    const others =
      this.opts.sharedByProcesses === true ||
      this.opts.checkpointedElsewhere === true ||
      this.checkpointer !== null;
    const busy = others ? BUSY_TIMEOUT_MS : null;
    this.batcher = new GroupCommit(
      this.db,
      one,
      prune,
      onError,
      busy,
      () => usage.write(),
      () => usage.clear(),
    );
    if (log) this.startSweeper();
  }

  private startSweeper(): void {
    const timeout = this.opts.reservationTimeoutMs ?? 0;
    const run = () => {
      try {
        this.sweep();
      } catch (err) {
        this.logger?.error({ err }, 'embedded store: sweeper failed');
      }
    };
    run();
    this.sweepTimer = setInterval(run, Math.min(10_000, Math.max(250, Math.floor(timeout / 4))));
    this.sweepTimer.unref();
  }

  /** Release admissions in flight longer than the reservation timeout (a killed process's); how many. */
  sweep(): number {
    const timeout = this.opts.reservationTimeoutMs;
    if (!this.inflight || timeout === undefined || !this.db.open) return 0;
    return this.inflight.sweep(this.st(), (this.opts.clock ?? systemClock).now() - timeout);
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.batcher?.drain(); // admissions and keeps still queued
    await this.checkpointer?.stop();
    this.checkpointer = null;
    await this.knex.destroy();
    if (this.db.open) this.db.close();
  }

  /** `{ sqlite }`: a trivial query answers. */
  async readiness(): Promise<Record<string, boolean>> {
    try {
      this.db.prepare('SELECT 1').get();
      return { sqlite: true };
    } catch {
      return { sqlite: false };
    }
  }

  isUnavailable(err: unknown): boolean {
    return isStoreUnavailable(err);
  }

  private admissions(): GroupCommit<AdmissionPlan, AdmissionResult> {
    if (!this.batcher) throw new Error('embedded store: migrate() was not called');
    return this.batcher;
  }

  private st(): HotStatements {
    if (!this.hot) throw new Error('embedded store: migrate() was not called');
    return this.hot;
  }

  async findKeyByHash(hash: string): Promise<KeyIdentity | null> {
    const st = this.st();
    const now = performance.now();
    const cached = this.keyCache.get(hash, now);
    if (cached !== undefined) return cached;
    const row = st.keyByHash.get(hash) as object | undefined;
    if (!row) return null;
    const identity = { key: toKey(row, 'k_'), account: toAccount(row) };
    this.keyCache.set(hash, identity, now);
    return identity;
  }

  /**
   * Key cache lookups so far. Not `identityCacheStats`: the metrics' label set of an embedded gateway stays as it
   * was (the integration metrics test pins it); this is for benchmarks and tests.
   */
  keyCacheStats(): { hits: number; misses: number } {
    return this.keyCache.stats;
  }

  async findWhitelistedAccount(address: string): Promise<Account | null> {
    const k = addressKey(address);
    if (!k) return null;
    const st = this.st();
    const near = st.whitelistNearest.get(k.family, k.hex) as
      { account_id: string; range_end: string } | undefined;
    if (!near) return null;
    const covered =
      near.range_end >= k.hex ||
      st.whitelistAccountCovers.get(near.account_id, k.family, k.hex, k.hex) !== undefined;
    const row = covered ? (st.accountById.get(near.account_id) as object | undefined) : undefined;
    return row ? toAccount(row) : null;
  }

  async admit(plan: AdmissionPlan): Promise<AdmissionResult> {
    return this.admissions().submit(plan);
  }

  async release(ticket: Ticket): Promise<void> {
    const st = this.st();
    const undo = asEmbeddedUndo(ticket.undo);
    const mark = this.releaseMark();
    this.db.transaction(() => releaseInTransaction(st, ticket.planId, undo, mark)).immediate();
  }

  /**
   * Drop the admission's release mark (its in-flight row, or its admissions row without crash recovery) so a later
   * release is a no-op. Keeps ride in the next group commit's transaction (with the admissions of that turn, or
   * alone when none are pending). Admissions rows never kept are pruned after two days (prune.ts); in-flight rows
   * never kept are released by the sweeper.
   */
  keep(ticket: Ticket): Promise<void> {
    const mark = this.releaseMark();
    const id = ticket.planId;
    return this.admissions().defer(() => void mark.remove(id));
  }

  /**
   * A key or an account changed through this store (everything but an admission's debit, whose balance the cached
   * identity does not decide on): forget the cached identities so the change is seen at once. Returns `result`.
   */
  private changed<T>(result: T): T {
    this.keyCache.clear();
    return result;
  }

  private releaseMark(): ReleaseMark {
    if (!this.mark) throw new Error('embedded store: migrate() was not called');
    return this.mark;
  }

  async recordRefusal(subjects: string[], day: string): Promise<void> {
    const st = this.st();
    this.db
      .transaction(() => {
        for (const s of subjects) st.usageAdd.refused.run(day, s);
      })
      .immediate();
  }

  async createAccount(input: NewAccount, now: number): Promise<Account> {
    return accounts.createAccount(this.db, input, now);
  }
  async getAccount(id: string): Promise<Account | null> {
    const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as object | undefined;
    return row ? toAccount(row) : null;
  }
  async findAccountByEmail(email: string): Promise<Account | null> {
    const norm = normaliseEmail(email);
    const row = this.db.prepare('SELECT * FROM accounts WHERE email_norm = ?').get(norm) as
      object | undefined;
    return row ? toAccount(row) : null;
  }
  async setAccountStatus(id: string, status: AccountStatus): Promise<Account> {
    return this.changed(accounts.updateAccount(this.db, id, 'status', status));
  }
  async setUnlimitedUntil(id: string, until: number | null): Promise<Account> {
    return this.changed(accounts.updateAccount(this.db, id, 'unlimited_until', until));
  }
  async setPasswordHash(id: string, hash: string): Promise<void> {
    this.changed(accounts.updateAccount(this.db, id, 'password_hash', hash));
  }
  async setEmail(id: string, email: string): Promise<Account> {
    return this.changed(accounts.setEmail(this.db, id, email));
  }
  async credit(accountId: string, amount: number, idempotencyKey: string | null, now: number) {
    return this.changed(accounts.credit(this.db, accountId, amount, idempotencyKey, now));
  }
  async buyPackage(accountId: string, price: number, key: NewKey, now: number) {
    return this.changed(accounts.buyPackage(this.db, accountId, price, key, now));
  }
  async createKey(input: NewKey, now: number): Promise<ApiKey> {
    return this.db.transaction(() => keys.insertKey(this.db, input, now)).immediate();
  }
  async getKey(id: string): Promise<ApiKey | null> {
    return keys.getKey(this.db, id);
  }
  async listKeys(accountId: string): Promise<ApiKey[]> {
    return keys.listKeys(this.db, accountId);
  }
  async listAccounts(query: AccountQuery): Promise<Account[]> {
    return listing.listAccounts(this.knex, query);
  }
  async listKeyPage(query: KeyQuery): Promise<ApiKey[]> {
    return listing.listKeyPage(this.knex, query);
  }
  async revokeKey(id: string, now: number): Promise<ApiKey> {
    return this.changed(keys.revokeKey(this.db, id, now));
  }
  async setKeyLabel(id: string, label: string | null): Promise<ApiKey> {
    // A cached key record carries the old label: a rename through this store is seen at once, like a revocation.
    return this.changed(keys.setKeyLabel(this.db, id, label));
  }
  async listSlots(
    scope: string,
    mode: 'fixed' | 'sliding',
    windowMs: number,
    now: number,
  ): Promise<SlotView[]> {
    return reports.listSlots(this.db, scope, mode, windowMs, now);
  }
  async addWhitelist(accountId: string, cidr: string, now: number): Promise<WhitelistEntry> {
    return whitelist.addWhitelist(this.db, accountId, cidr, now);
  }
  async removeWhitelist(accountId: string, entryId: string): Promise<void> {
    whitelist.removeWhitelist(this.db, accountId, entryId);
  }
  async listWhitelist(accountId: string): Promise<WhitelistEntry[]> {
    return whitelist.listWhitelist(this.db, accountId);
  }
  async usage(subjects: string[], fromDay: string, toDay: string): Promise<UsageRow[]> {
    return reports.usage(this.db, subjects, fromDay, toDay);
  }
  async ledger(accountId: string, limit: number, before?: string): Promise<LedgerEntry[]> {
    return reports.ledger(this.db, accountId, limit, before);
  }
  async consumeOnce(id: string, expiresAt: number, now: number): Promise<boolean> {
    return this.singleUse().consumeOnce(id, expiresAt, now);
  }
  async isConsumed(id: string, now: number): Promise<boolean> {
    return this.singleUse().isConsumed(id, now);
  }

  async hitWindow(name: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    if (!this.windows) throw new Error('embedded store: migrate() was not called');
    return this.windows.hitWindow(name, windowMs, now);
  }

  /* --- receipts (issue 15 item 3; receipts.ts) --- */
  async getBilling(accountId: string): Promise<BillingDetails> {
    return receipts.getBilling(this.db, accountId);
  }
  async setBilling(accountId: string, billing: BillingDetails, now: number): Promise<BillingDetails> {
    return receipts.setBilling(this.db, accountId, billing, now);
  }
  async creditWithReceipt(
    accountId: string,
    amount: number,
    idempotencyKey: string | null,
    now: number,
    receipt: ReceiptInput,
  ) {
    return this.changed(receipts.creditWithReceipt(this.db, accountId, amount, idempotencyKey, now, receipt));
  }
  async buyPackageWithReceipt(
    accountId: string,
    price: number,
    key: NewKey,
    now: number,
    receipt: ReceiptInput,
  ) {
    return this.changed(receipts.buyPackageWithReceipt(this.db, accountId, price, key, now, receipt));
  }
  async listReceipts(accountId: string, limit: number, before?: string): Promise<Receipt[]> {
    return receipts.listReceipts(this.db, accountId, limit, before);
  }
  async getReceipt(accountId: string, number: string): Promise<Receipt | null> {
    return receipts.getReceipt(this.db, accountId, number);
  }
  async refundTopUp(input: RefundInput, now: number): Promise<RefundResult> {
    return this.changed(refunds.refundTopUp(this.db, input, now));
  }

  private singleUse(): EmbeddedMarks {
    if (!this.marks) throw new Error('embedded store: migrate() was not called');
    return this.marks;
  }

  /* ================= notifications (issue 15 item 2; embedded/notifications.ts) ================= */
  async notificationSettings(accountId: string): Promise<NotificationSettings> {
    return this.notifications().settings(accountId);
  }
  async setNotificationSettings(accountId: string, emailAlerts: boolean, threshold: number | null) {
    return this.notifications().setSettings(accountId, emailAlerts, threshold);
  }
  async lowBalanceWatch(after: string | null, limit: number): Promise<NotificationSettings[]> {
    return this.notifications().watched(after, watchPageSize(limit));
  }
  async armLowBalance(accountId: string, seq: number, armed: boolean): Promise<boolean> {
    return this.notifications().arm(accountId, seq, armed);
  }
  async listWebhookEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    return this.notifications().endpoints(accountId);
  }
  async addWebhookEndpoint(accountId: string, url: string, secret: string, max: number, now: number) {
    return this.notifications().addEndpoint(accountId, url, secret, max, now);
  }
  async removeWebhookEndpoint(accountId: string, id: string): Promise<boolean> {
    return this.notifications().removeEndpoint(accountId, id);
  }
  async recordNotification(event: NotificationEvent, deliveries: NewDelivery[]): Promise<boolean> {
    return this.notifications().record(event, deliveries);
  }
  async claimDeliveries(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<ClaimedDelivery[]> {
    return this.notifications().claim(owner, now, leaseMs, limit);
  }
  async finishDelivery(
    id: string,
    owner: string,
    attempt: DeliveryAttempt,
    next: DeliveryNext,
  ): Promise<boolean> {
    return this.notifications().finish(id, owner, attempt, next);
  }
  async deliveryLog(accountId: string, limit: number): Promise<DeliveryLogEntry[]> {
    return this.notifications().log(accountId, limit);
  }
  async unlimitedEnding(from: number, to: number): Promise<UnlimitedEnding[]> {
    return this.notifications().ending(from, to);
  }
  async pruneNotifications(before: number): Promise<number> {
    return this.notifications().prune(before);
  }
  private notifications(): EmbeddedNotifications {
    if (!this.notices) throw new Error('embedded store: migrate() was not called');
    return this.notices;
  }

  /* --- key restrictions (issue 15 item 4) --- */
  async setKeyRestrictions(id: string, restrictions: KeyRestrictions | null): Promise<ApiKey> {
    // Seen at once by this process, like a revocation; other processes on the file within the cache's 500 ms.
    return this.changed(setKeyRestrictions(this.db, id, restrictions));
  }

  /* --- account lifecycle (issue 15 item 1; account-lifecycle.ts) --- */
  async markEmailVerified(id: string, now: number): Promise<Account> {
    return this.changed(lifecycle.markEmailVerified(this.db, id, now));
  }
  async deleteAccount(
    id: string,
    tombstone: string,
    now: number,
  ): Promise<{ account: Account; forfeited: number }> {
    // Cached key records of the account are revoked now: seen at once through this store, like revokeKey.
    return this.changed(lifecycle.deleteAccount(this.db, id, tombstone, now));
  }
}

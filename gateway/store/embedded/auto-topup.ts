/**
 * Auto top-up on SQLite (AutoTopUpStore): synchronous statements, each write one transaction, so nothing
 * interleaves with the group commit of admissions. SQLite has one writer, so a claim (one INSERT … SELECT) is
 * exclusive across the processes on the file.
 */
import type Database from 'better-sqlite3';
import {
  attemptId,
  autoTopUpPage,
  CARD_REMOVE,
  CARD_UPDATE,
  CLAIM_INSERT,
  CUSTOMER_UPSERT,
  defaultAutoTopUp,
  FAILURE_UPDATE,
  FINISH_UPDATE,
  INTENT_UPDATE,
  REARM_UPDATE,
  SETTINGS_UPSERT,
  SUCCESS_UPDATE,
  toAttempt,
  toAutoTopUp,
  watchSql,
  type AutoTopUpAttempt,
  type AutoTopUpFinish,
  type AutoTopUpOutcome,
  type AutoTopUpSettings,
} from '../auto-topup';
import type { AutoTopUpStore } from '../ports/auto-topup';
import { StoreConflict } from '../types';

type Row = Record<string, unknown>;

/** Auto top-up records on one SQLite connection. */
export class EmbeddedAutoTopUps implements AutoTopUpStore {
  constructor(private readonly db: Database.Database) {}

  private requireAccount(accountId: string): void {
    if (this.db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(accountId) === undefined) {
      throw new StoreConflict('not_found', `account ${accountId} not found`);
    }
  }

  private settings(accountId: string): AutoTopUpSettings {
    const row = this.db.prepare('SELECT * FROM auto_topup_settings WHERE account_id = ?').get(accountId);
    return row ? toAutoTopUp(row as Row) : defaultAutoTopUp(accountId);
  }

  private attempt(id: string): AutoTopUpAttempt | null {
    const row = this.db.prepare('SELECT * FROM auto_topup_attempts WHERE id = ?').get(id);
    return row ? toAttempt(row as Row) : null;
  }

  async autoTopUp(accountId: string): Promise<AutoTopUpSettings> {
    return this.settings(accountId);
  }

  async setAutoTopUp(
    accountId: string,
    enabled: boolean,
    threshold: number | null,
    amount: number | null,
    now: number,
  ): Promise<AutoTopUpSettings> {
    return this.db
      .transaction(() => {
        this.requireAccount(accountId);
        this.db.prepare(SETTINGS_UPSERT).run(accountId, enabled ? 1 : 0, threshold, amount, now);
        return this.settings(accountId);
      })
      .immediate();
  }

  async setAutoTopUpCustomer(accountId: string, customerId: string, now: number): Promise<AutoTopUpSettings> {
    return this.db
      .transaction(() => {
        this.requireAccount(accountId);
        this.db.prepare(CUSTOMER_UPSERT).run(accountId, customerId, now);
        return this.settings(accountId);
      })
      .immediate();
  }

  async saveAutoTopUpCard(
    accountId: string,
    customerId: string,
    paymentMethodId: string,
    cardLabel: string,
    now: number,
  ): Promise<boolean> {
    return (
      this.db.prepare(CARD_UPDATE).run(paymentMethodId, cardLabel, now, accountId, customerId).changes === 1
    );
  }

  async removeAutoTopUpCard(accountId: string, now: number): Promise<void> {
    this.db.prepare(CARD_REMOVE).run(now, accountId);
  }

  async autoTopUpWatch(after: string | null, limit: number): Promise<AutoTopUpSettings[]> {
    const rows = this.db.prepare(watchSql('')).all(after ?? '', autoTopUpPage(limit)) as Row[];
    return rows.map(toAutoTopUp);
  }

  async claimAutoTopUp(accountId: string, seq: number, now: number): Promise<AutoTopUpAttempt | null> {
    const id = attemptId(accountId, seq);
    return this.db
      .transaction(() => {
        const res = this.db.prepare(CLAIM_INSERT).run(id, now, accountId, seq, accountId);
        return res.changes === 1 ? this.attempt(id) : null;
      })
      .immediate();
  }

  async rearmAutoTopUp(accountId: string, seq: number): Promise<boolean> {
    return this.db.prepare(REARM_UPDATE).run(accountId, seq, attemptId(accountId, seq)).changes === 1;
  }

  async setAutoTopUpIntent(accountId: string, seq: number, paymentIntent: string): Promise<void> {
    this.db.prepare(INTENT_UPDATE).run(paymentIntent, attemptId(accountId, seq));
  }

  async finishAutoTopUp(
    accountId: string,
    seq: number,
    outcome: AutoTopUpOutcome,
    maxFailures: number,
    now: number,
  ): Promise<AutoTopUpFinish> {
    return this.db
      .transaction((): AutoTopUpFinish => {
        const id = attemptId(accountId, seq);
        const res = this.db
          .prepare(FINISH_UPDATE)
          .run(outcome.status, outcome.paymentIntent, outcome.error, now, id);
        const before = this.settings(accountId);
        if (res.changes !== 1) return { changed: false, failures: before.failures, switchedOff: false };
        if (outcome.status === 'succeeded') {
          this.db.prepare(SUCCESS_UPDATE).run(accountId);
          return { changed: true, failures: 0, switchedOff: false };
        }
        this.db.prepare(FAILURE_UPDATE).run(maxFailures, maxFailures, accountId);
        const after = this.settings(accountId);
        return { changed: true, failures: after.failures, switchedOff: before.enabled && !after.enabled };
      })
      .immediate();
  }

  async autoTopUpAttempt(accountId: string, seq: number): Promise<AutoTopUpAttempt | null> {
    return this.attempt(attemptId(accountId, seq));
  }

  async pendingAutoTopUps(before: number, limit: number): Promise<AutoTopUpAttempt[]> {
    const rows = this.db
      .prepare(
        `SELECT * FROM auto_topup_attempts WHERE status = 'pending' AND created_at < ?
         ORDER BY created_at, id LIMIT ?`,
      )
      .all(before, autoTopUpPage(limit)) as Row[];
    return rows.map(toAttempt);
  }

  async autoTopUpAttempts(accountId: string, limit: number): Promise<AutoTopUpAttempt[]> {
    const rows = this.db
      .prepare(
        `SELECT * FROM auto_topup_attempts WHERE account_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?`,
      )
      .all(accountId, autoTopUpPage(limit)) as Row[];
    return rows.map(toAttempt);
  }
}

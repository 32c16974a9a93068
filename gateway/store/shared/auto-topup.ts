/**
 * Auto top-up in PostgreSQL (the shared store's AutoTopUpStore). The claim runs with the account's settings row
 * locked (`FOR UPDATE`), so two instances cannot both pass the "no attempt pending" test with different crossings;
 * the attempt's primary key makes one crossing's claim single. PostgreSQL faults leave as StoreUnavailableError.
 */
import type { Knex } from 'knex';
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
import type { SharedContext } from './context';

type Row = Record<string, unknown>;
type Result = { rows: Row[]; rowCount: number | null };
type Db = Knex | Knex.Transaction;

// Byte order whatever the database's collation, as on SQLite: the page boundary and the order agree.
const WATCH_SQL = watchSql('COLLATE "C"');

/** Auto top-up records of one shared store. */
export class SharedAutoTopUps implements AutoTopUpStore {
  constructor(private readonly c: Pick<SharedContext, 'knex' | 'pg'>) {}

  private async raw(sql: string, bindings: readonly unknown[], db: Db = this.c.knex): Promise<Result> {
    return (await db.raw(sql, bindings as Knex.RawBinding[])) as Result;
  }

  private async settings(accountId: string, db: Db = this.c.knex): Promise<AutoTopUpSettings> {
    const res = await this.raw('SELECT * FROM auto_topup_settings WHERE account_id = ?', [accountId], db);
    const row = res.rows[0];
    return row ? toAutoTopUp(row) : defaultAutoTopUp(accountId);
  }

  private async attempt(id: string, db: Db = this.c.knex): Promise<AutoTopUpAttempt | null> {
    const res = await this.raw('SELECT * FROM auto_topup_attempts WHERE id = ?', [id], db);
    const row = res.rows[0];
    return row ? toAttempt(row) : null;
  }

  private async lockAccount(trx: Knex.Transaction, accountId: string): Promise<void> {
    const res = await this.raw('SELECT id FROM accounts WHERE id = ? FOR UPDATE', [accountId], trx);
    if (res.rows.length === 0) throw new StoreConflict('not_found', `account ${accountId} not found`);
  }

  autoTopUp(accountId: string): Promise<AutoTopUpSettings> {
    return this.c.pg(() => this.settings(accountId));
  }

  setAutoTopUp(
    accountId: string,
    enabled: boolean,
    threshold: number | null,
    amount: number | null,
    now: number,
  ): Promise<AutoTopUpSettings> {
    return this.c.pg(() =>
      this.c.knex.transaction(async (trx) => {
        await this.lockAccount(trx, accountId);
        await this.raw(SETTINGS_UPSERT, [accountId, enabled ? 1 : 0, threshold, amount, now], trx);
        return this.settings(accountId, trx);
      }),
    );
  }

  setAutoTopUpCustomer(accountId: string, customerId: string, now: number): Promise<AutoTopUpSettings> {
    return this.c.pg(() =>
      this.c.knex.transaction(async (trx) => {
        await this.lockAccount(trx, accountId);
        await this.raw(CUSTOMER_UPSERT, [accountId, customerId, now], trx);
        return this.settings(accountId, trx);
      }),
    );
  }

  saveAutoTopUpCard(
    accountId: string,
    customerId: string,
    paymentMethodId: string,
    cardLabel: string,
    now: number,
  ): Promise<boolean> {
    return this.c.pg(async () => {
      const res = await this.raw(CARD_UPDATE, [paymentMethodId, cardLabel, now, accountId, customerId]);
      return res.rowCount === 1;
    });
  }

  removeAutoTopUpCard(accountId: string, now: number): Promise<void> {
    return this.c.pg(async () => {
      await this.raw(CARD_REMOVE, [now, accountId]);
    });
  }

  async autoTopUpWatch(after: string | null, limit: number): Promise<AutoTopUpSettings[]> {
    const size = autoTopUpPage(limit);
    return this.c.pg(async () => (await this.raw(WATCH_SQL, [after ?? '', size])).rows.map(toAutoTopUp));
  }

  claimAutoTopUp(accountId: string, seq: number, now: number): Promise<AutoTopUpAttempt | null> {
    const id = attemptId(accountId, seq);
    return this.c.pg(() =>
      this.c.knex.transaction(async (trx) => {
        await this.raw('SELECT 1 FROM auto_topup_settings WHERE account_id = ? FOR UPDATE', [accountId], trx);
        const res = await this.raw(CLAIM_INSERT, [id, now, accountId, seq, accountId], trx);
        return res.rowCount === 1 ? this.attempt(id, trx) : null;
      }),
    );
  }

  rearmAutoTopUp(accountId: string, seq: number): Promise<boolean> {
    return this.c.pg(async () => {
      const res = await this.raw(REARM_UPDATE, [accountId, seq, attemptId(accountId, seq)]);
      return res.rowCount === 1;
    });
  }

  setAutoTopUpIntent(accountId: string, seq: number, paymentIntent: string): Promise<void> {
    return this.c.pg(async () => {
      await this.raw(INTENT_UPDATE, [paymentIntent, attemptId(accountId, seq)]);
    });
  }

  finishAutoTopUp(
    accountId: string,
    seq: number,
    outcome: AutoTopUpOutcome,
    maxFailures: number,
    now: number,
  ): Promise<AutoTopUpFinish> {
    return this.c.pg(() =>
      this.c.knex.transaction(async (trx): Promise<AutoTopUpFinish> => {
        await this.raw('SELECT 1 FROM auto_topup_settings WHERE account_id = ? FOR UPDATE', [accountId], trx);
        const res = await this.raw(
          FINISH_UPDATE,
          [outcome.status, outcome.paymentIntent, outcome.error, now, attemptId(accountId, seq)],
          trx,
        );
        const before = await this.settings(accountId, trx);
        if (res.rowCount !== 1) return { changed: false, failures: before.failures, switchedOff: false };
        if (outcome.status === 'succeeded') {
          await this.raw(SUCCESS_UPDATE, [accountId], trx);
          return { changed: true, failures: 0, switchedOff: false };
        }
        await this.raw(FAILURE_UPDATE, [maxFailures, maxFailures, accountId], trx);
        const after = await this.settings(accountId, trx);
        return { changed: true, failures: after.failures, switchedOff: before.enabled && !after.enabled };
      }),
    );
  }

  autoTopUpAttempt(accountId: string, seq: number): Promise<AutoTopUpAttempt | null> {
    return this.c.pg(() => this.attempt(attemptId(accountId, seq)));
  }

  async pendingAutoTopUps(before: number, limit: number): Promise<AutoTopUpAttempt[]> {
    const size = autoTopUpPage(limit);
    return this.c.pg(async () => {
      const res = await this.raw(
        `SELECT * FROM auto_topup_attempts WHERE status = 'pending' AND created_at < ?
         ORDER BY created_at, id LIMIT ?`,
        [before, size],
      );
      return res.rows.map(toAttempt);
    });
  }

  async autoTopUpAttempts(accountId: string, limit: number): Promise<AutoTopUpAttempt[]> {
    const size = autoTopUpPage(limit);
    return this.c.pg(async () => {
      const res = await this.raw(
        `SELECT * FROM auto_topup_attempts WHERE account_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?`,
        [accountId, size],
      );
      return res.rows.map(toAttempt);
    });
  }
}

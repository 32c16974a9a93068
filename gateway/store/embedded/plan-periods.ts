/**
 * Paid Unlimited periods of the embedded store (rule set B, D17): the period, the account's new plan end and the
 * receipt are written in one IMMEDIATE transaction; a `ref` seen before answers its first period and changes nothing.
 */
import type Database from 'better-sqlite3';
import {
  newPlanPeriodId,
  periodStart,
  planPeriodRow,
  requirePlanInput,
  toPlanPeriod,
  type PlanPeriod,
  type PlanPeriodInput,
  type PlanPurchase,
} from '../plan-periods';
import { toReceipt } from '../receipts';
import { requireLimit } from '../checks';
import { StoreConflict } from '../types';
import { requireAccount, requireLiveAccount } from './accounts';
import { issue } from './receipts';

/** Buy one period (see BillingStore.buyPlanPeriod). */
export function buyPlanPeriod(
  db: Database.Database,
  accountId: string,
  input: PlanPeriodInput,
  now: number,
): PlanPurchase {
  requirePlanInput(input);
  return db
    .transaction((): PlanPurchase => {
      const account = requireLiveAccount(db, accountId);
      const prior = db.prepare('SELECT * FROM plan_periods WHERE ref = ?').get(input.ref) as
        object | undefined;
      if (prior) {
        const period = toPlanPeriod(prior);
        if (period.accountId !== accountId) {
          throw new StoreConflict('idempotency_mismatch', 'this payment bought a period of another account');
        }
        const receipt = db
          .prepare('SELECT * FROM receipts WHERE number = ?')
          .get(period.receiptNumber) as object;
        return { period, account, receipt: toReceipt(receipt), replayed: true };
      }
      const id = newPlanPeriodId();
      const receipt = issue(db, { accountId, sourceId: id, kind: 'plan', amount: 0, now }, input.receipt);
      const row = planPeriodRow(
        id,
        accountId,
        input,
        periodStart(account.unlimitedUntil, now),
        receipt.number,
        now,
      );
      db.prepare(
        `INSERT INTO plan_periods (id, account_id, ref, starts_at, ends_at, days, method, paid_minor, paid_currency,
           payment_ref, receipt_number, created_at)
         VALUES (@id, @account_id, @ref, @starts_at, @ends_at, @days, @method, @paid_minor, @paid_currency,
           @payment_ref, @receipt_number, @created_at)`,
      ).run(row);
      db.prepare('UPDATE accounts SET unlimited_until = ? WHERE id = ?').run(row.ends_at, accountId);
      return { period: toPlanPeriod(row), account: requireAccount(db, accountId), receipt, replayed: false };
    })
    .immediate();
}

/** The account's newest `limit` periods, newest first; unknown account → not_found. */
export function planPeriods(db: Database.Database, accountId: string, limit: number): PlanPeriod[] {
  requireLimit(limit);
  requireAccount(db, accountId);
  const rows = db
    .prepare(
      'SELECT * FROM plan_periods WHERE account_id = ? ORDER BY created_at DESC, starts_at DESC LIMIT ?',
    )
    .all(accountId, limit) as object[];
  return rows.map(toPlanPeriod);
}

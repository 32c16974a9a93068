/**
 * Paid Unlimited periods of the shared store (rule set B, D17) in PostgreSQL: the account row is locked (FOR UPDATE),
 * so two purchases of one account queue and each extends from the end the other wrote; the period, the new
 * `unlimited_until` and the receipt commit together. A `ref` seen before answers its first period; the unique `ref`
 * catches a race the lock cannot (two accounts named by one payment). The caller publishes the account's
 * invalidation after the commit, so every instance's admission sees the new end within the bus's delay.
 */
import type { Knex } from 'knex';
import { requireLimit } from '../checks';
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
import { toAccount } from '../rows';
import { StoreConflict } from '../types';
import { requireAccount } from './pg-accounts';
import { isUniqueViolation } from './pg';
import { issue } from './receipts';

/** The account's live row, locked until the transaction ends (unknown → not_found, deleted → account_deleted). */
async function lockLiveAccount(trx: Knex.Transaction, id: string) {
  const row = await trx('accounts').where({ id }).forUpdate().first();
  if (!row) throw new StoreConflict('not_found', `account ${id} not found`);
  const account = toAccount(row);
  if (account.status === 'deleted') throw new StoreConflict('account_deleted', `account ${id} is deleted`);
  return account;
}

/** One attempt (see BillingStore.buyPlanPeriod); the balance of the returned account is the caller's to fill. */
async function attempt(
  db: Knex,
  accountId: string,
  input: PlanPeriodInput,
  now: number,
): Promise<PlanPurchase> {
  return db.transaction(async (trx) => {
    const account = await lockLiveAccount(trx, accountId);
    const prior = await trx('plan_periods').where({ ref: input.ref }).first();
    if (prior) {
      const period = toPlanPeriod(prior);
      if (period.accountId !== accountId) {
        throw new StoreConflict('idempotency_mismatch', 'this payment bought a period of another account');
      }
      const receipt = await trx('receipts').where({ number: period.receiptNumber }).first();
      return { period, account, receipt: toReceipt(receipt as object), replayed: true };
    }
    const id = newPlanPeriodId();
    // A savepoint inside this transaction: the receipt's number is given back if anything below fails.
    const receipt = await issue(
      trx,
      { accountId, sourceId: id, kind: 'plan', amount: 0, now },
      input.receipt,
    );
    const row = planPeriodRow(
      id,
      accountId,
      input,
      periodStart(account.unlimitedUntil, now),
      receipt.number,
      now,
    );
    await trx('plan_periods').insert(row);
    const [updated] = await trx('accounts')
      .where({ id: accountId })
      .update({ unlimited_until: row.ends_at })
      .returning('*');
    return { period: toPlanPeriod(row), account: toAccount(updated as object), receipt, replayed: false };
  });
}

/** Buy one period; a lost race on the unique ref is answered by the winner's period on the next attempt. */
export async function buyPlanPeriod(
  db: Knex,
  accountId: string,
  input: PlanPeriodInput,
  now: number,
): Promise<PlanPurchase> {
  requirePlanInput(input);
  for (let n = 0; ; n += 1) {
    try {
      return await attempt(db, accountId, input, now);
    } catch (err) {
      if (isUniqueViolation(err) && n < 2) continue;
      throw err;
    }
  }
}

/** The account's newest `limit` periods, newest first; unknown account → not_found. */
export async function planPeriods(db: Knex, accountId: string, limit: number): Promise<PlanPeriod[]> {
  requireLimit(limit);
  await requireAccount(db, accountId);
  const rows = await db('plan_periods')
    .where({ account_id: accountId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'starts_at', order: 'desc' },
    ])
    .limit(limit);
  return rows.map(toPlanPeriod);
}

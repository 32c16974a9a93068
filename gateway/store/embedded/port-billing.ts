/** The embedded store's billing part (BillingStore): credit, packages, the ledger, receipts and billing details. */
import type Database from 'better-sqlite3';
import type { BillingStore } from '../ports';
import type { BillingDetails, Receipt, ReceiptInput } from '../receipts';
import type { RefundInput, RefundResult } from '../refunds';
import type { LedgerEntry, NewKey } from '../types';
import type { PlanPeriod, PlanPeriodInput, PlanPurchase } from '../plan-periods';
import * as accounts from './accounts';
import * as plans from './plan-periods';
import * as receipts from './receipts';
import * as refunds from './refunds';
import * as reports from './reports';

/** Money on one SQLite connection; `changed` forgets cached key identities (they carry the balance). */
export class EmbeddedBilling implements BillingStore {
  constructor(
    private readonly db: Database.Database,
    private readonly changed: <T>(result: T) => T,
  ) {}

  async credit(accountId: string, amount: number, idempotencyKey: string | null, now: number) {
    return this.changed(accounts.credit(this.db, accountId, amount, idempotencyKey, now));
  }
  async buyPackage(accountId: string, price: number, key: NewKey, now: number) {
    return this.changed(accounts.buyPackage(this.db, accountId, price, key, now));
  }
  async ledger(accountId: string, limit: number, before?: string): Promise<LedgerEntry[]> {
    return reports.ledger(this.db, accountId, limit, before);
  }
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
  async buyPlanPeriod(accountId: string, input: PlanPeriodInput, now: number): Promise<PlanPurchase> {
    return this.changed(plans.buyPlanPeriod(this.db, accountId, input, now));
  }
  async planPeriods(accountId: string, limit: number): Promise<PlanPeriod[]> {
    return plans.planPeriods(this.db, accountId, limit);
  }
}

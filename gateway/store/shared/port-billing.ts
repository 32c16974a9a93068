/**
 * The shared store's billing part (BillingStore): credit and package debits through the Redis wallet (wallet.ts),
 * the ledger drained to PostgreSQL, receipts and billing details in PostgreSQL.
 */
import { requireKeyOfAccount, requireLimit, requireSameTopup, requireUnits } from '../checks';
import type { BillingStore } from '../ports';
import { requireReceiptInput, type BillingDetails, type Receipt, type ReceiptInput } from '../receipts';
import type { RefundInput, RefundResult } from '../refunds';
import { toLedger } from '../rows';
import { StoreConflict, type ApiKey, type LedgerEntry, type NewKey } from '../types';
import type { SharedContext } from './context';
import type { PlanPeriod, PlanPeriodInput, PlanPurchase } from '../plan-periods';
import * as pga from './pg-accounts';
import * as plans from './plan-periods';
import * as receipts from './receipts';
import * as refunds from './refunds';

/** Money of one shared store. */
export class SharedBilling implements BillingStore {
  constructor(private readonly c: SharedContext) {}

  async credit(
    accountId: string,
    amount: number,
    idempotencyKey: string | null,
    now: number,
  ): Promise<{ entry: LedgerEntry; balance: number; replayed: boolean }> {
    const c = this.c;
    requireUnits('amount', amount);
    const account = await c.pg(() => pga.requireLiveAccount(c.knex, accountId));
    if (idempotencyKey !== null) {
      const prior = await c.pg(() =>
        c.knex('ledger').where({ account_id: accountId, ref: idempotencyKey }).first(),
      );
      if (prior) {
        const entry = toLedger(prior);
        requireSameTopup(entry, amount);
        return { entry, balance: (await c.withBalance(account)).balance, replayed: true };
      }
    }
    const result = await c.wallets.credit(accountId, amount, idempotencyKey, now);
    await c.settleLedger();
    // Cached identities carry the drained balance: drop them so the top-up shows.
    await c.changed({ k: 'account', id: accountId });
    return result;
  }

  async buyPackage(
    accountId: string,
    price: number,
    input: NewKey,
    now: number,
  ): Promise<{ key: ApiKey; balance: number }> {
    const c = this.c;
    requireUnits('price', price);
    requireKeyOfAccount(accountId, input);
    const key = await c.pg(() => pga.insertKey(c.knex, input, now));
    let balance: number | false;
    try {
      balance = await c.wallets.debit(accountId, price, key.id, now);
    } catch (err) {
      await c
        .knex('api_keys')
        .where({ id: key.id })
        .delete()
        .catch(() => undefined);
      throw err;
    }
    if (balance === false) {
      await c.pg(() => c.knex('api_keys').where({ id: key.id }).delete());
      throw new StoreConflict('insufficient_balance', 'the balance does not cover the package');
    }
    await c.settleLedger();
    await c.changed({ k: 'key', hash: input.hash });
    await c.changed({ k: 'account', id: accountId });
    return { key, balance };
  }

  async ledger(accountId: string, limit: number, before?: string): Promise<LedgerEntry[]> {
    const c = this.c;
    requireLimit(limit);
    await c.pg(() => pga.requireAccount(c.knex, accountId));
    await c.flushForRead();
    const rows = await c.pg(() => {
      const q = c.knex('ledger').where({ account_id: accountId });
      if (before !== undefined)
        q.where('seq', '<', c.knex('ledger').select('seq').where({ id: before, account_id: accountId }));
      return q.orderBy('seq', 'desc').limit(limit);
    });
    return rows.map(toLedger);
  }

  getBilling(accountId: string): Promise<BillingDetails> {
    return this.c.pg(() => receipts.getBilling(this.c.knex, accountId));
  }

  setBilling(accountId: string, billing: BillingDetails, now: number): Promise<BillingDetails> {
    return this.c.pg(() => receipts.setBilling(this.c.knex, accountId, billing, now));
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
    const receipt = await this.c.pg(() => receipts.issue(this.c.knex, src, input));
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
    const receipt = await this.c.pg(() => receipts.issue(this.c.knex, src, input));
    return { ...r, receipt };
  }

  listReceipts(accountId: string, limit: number, before?: string): Promise<Receipt[]> {
    return this.c.pg(() => receipts.listReceipts(this.c.knex, accountId, limit, before));
  }

  getReceipt(accountId: string, number: string): Promise<Receipt | null> {
    return this.c.pg(() => receipts.getReceipt(this.c.knex, accountId, number));
  }

  async refundTopUp(input: RefundInput, now: number): Promise<RefundResult> {
    const c = this.c;
    const deps = {
      knex: c.knex,
      redis: c.redis,
      layout: c.layout,
      initWallet: (accountId: string) => c.wallets.init(accountId),
      pg: <T>(fn: () => Promise<T>) => c.pg(fn),
    };
    const r = await refunds.refundTopUp(deps, input, now);
    if (r.status === 'applied' && r.accountId !== null) {
      await c.settleLedger();
      // Cached identities carry the drained balance: drop them so the refund shows.
      await c.changed({ k: 'account', id: r.accountId });
    }
    return r;
  }

  async buyPlanPeriod(accountId: string, input: PlanPeriodInput, now: number): Promise<PlanPurchase> {
    const c = this.c;
    const r = await c.pg(() => plans.buyPlanPeriod(c.knex, accountId, input, now));
    // The new plan end reaches every instance's cached identity (and admission) through the bus.
    if (!r.replayed) await c.changed({ k: 'account', id: accountId });
    return { ...r, account: await c.withBalance(r.account) };
  }

  planPeriods(accountId: string, limit: number): Promise<PlanPeriod[]> {
    return this.c.pg(() => plans.planPeriods(this.c.knex, accountId, limit));
  }
}

/** The `test` provider for demos and tests: the payment completes at once and credits the account. */
import type { AccountsService } from '../../gateway/accounts/service';
import { StoreConflict } from '../../gateway/store/types';
import { invalidField } from '../errors';
import type { PaymentProvider } from './types';

/** A provider that credits immediately, exactly once per idempotency key. */
export function testProvider(accounts: Pick<AccountsService, 'topUp'>): PaymentProvider {
  return {
    name: 'test',
    checkAmount() {},
    async startTopUp(req) {
      try {
        const key = `test:${req.idempotencyKey}`;
        const r = await accounts.topUp(req.accountId, req.units, key, req.actor, { method: 'test' });
        return { kind: 'credited', balance: r.balance, ...(r.receipt ? { receipt: r.receipt.number } : {}) };
      } catch (err) {
        if (err instanceof StoreConflict && err.reason === 'idempotency_mismatch') {
          throw invalidField('amount', 'This form was already used for another amount; reload the page');
        }
        throw err;
      }
    },
  };
}

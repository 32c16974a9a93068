/** The `test` provider for demos and tests: the payment completes at once and credits the account. */
import type { Clock } from '../../gateway/core/clock';
import { StoreConflict, type Store } from '../../gateway/store/types';
import { invalidField } from '../errors';
import type { PaymentProvider } from './types';

/** A provider that credits immediately, exactly once per idempotency key. */
export function testProvider(store: Store, clock: Clock): PaymentProvider {
  return {
    name: 'test',
    checkAmount() {},
    async startTopUp(req) {
      try {
        const key = `test:${req.idempotencyKey}`;
        const { balance } = await store.credit(req.accountId, req.units, key, clock.now());
        return { kind: 'credited', balance };
      } catch (err) {
        if (err instanceof StoreConflict && err.reason === 'idempotency_mismatch') {
          throw invalidField('amount', 'This form was already used for another amount; reload the page');
        }
        throw err;
      }
    },
  };
}

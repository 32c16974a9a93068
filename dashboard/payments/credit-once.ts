/** The last step of every payment webhook: credit a paid top-up once (by its provider reference) and answer. */
import type { Response } from 'express';
import type pino from 'pino';
import type { AccountsService } from '../../gateway/accounts/service';
import type { ReceiptInput } from '../../gateway/store/receipts';
import { StoreConflict } from '../../gateway/store/types';

/**
 * Credit `units` to the account under the ledger reference `ref` (a repeat credits nothing: the store's idempotency
 * key) and answer the provider `{ received, credited }`; an account that no longer exists is answered, not retried.
 */
export async function creditOnce(
  res: Response,
  deps: { accounts: Pick<AccountsService, 'topUp'>; logger: pino.Logger },
  topUp: { accountId: string; units: number; ref: string; payment: Omit<ReceiptInput, 'currency'> },
  log: { fields: Record<string, unknown>; message: string },
): Promise<void> {
  try {
    const r = await deps.accounts.topUp(topUp.accountId, topUp.units, topUp.ref, undefined, topUp.payment);
    deps.logger.info(
      { ...log.fields, accountId: topUp.accountId, replayed: r.replayed, receipt: r.receipt?.number },
      log.message,
    );
    res.json({ received: true, credited: !r.replayed });
  } catch (err) {
    // An account that is gone (never existed, or deleted after checkout: its balance was forfeited and no top-up
    // may reach it) is answered, so the provider stops retrying; the payment is refunded outside the gateway.
    if (err instanceof StoreConflict && (err.reason === 'not_found' || err.reason === 'account_deleted')) {
      deps.logger.warn(
        { ...log.fields, accountId: topUp.accountId, reason: err.reason },
        'payment for an account that no longer exists: not credited',
      );
      res.json({ received: true, credited: false });
      return;
    }
    throw err;
  }
}

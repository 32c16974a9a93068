/**
 * The store contract: one suite of behaviour-named tests that every Store implementation runs (the embedded SQLite
 * store and the shared PostgreSQL + Redis store). It observes the store only through the `Store` interface.
 */
import type { Store } from '../../gateway/store/ports';
import { accountRules } from './accounts.contract';
import { accountLifecycleRules } from './account-lifecycle.contract';
import { allowanceRules } from './allowance.contract';
import type { StoreFactory, StoreHolder } from './helpers';
import { keepRules } from './keep.contract';
import { keyRules } from './keys.contract';
import { ledgerHourRules } from './ledger-hour.contract';
import { keySecretRules } from './key-secrets.contract';
import { listingRules } from './listing.contract';
import { modelRules } from './model.contract';
import { planPeriodRules } from './plan-periods.contract';
import { notificationRules } from './notifications.contract';
import { propertyRules } from './properties.contract';
import { quotaRules } from './quota.contract';
import { invoiceRules } from './invoices.contract';
import { receiptRules } from './receipts.contract';
import { refundRules } from './refunds.contract';
import { refusalRules } from './refusal.contract';
import { singleUseRules } from './single-use.contract';
import { throttleRules } from './throttle.contract';
import { releaseRules } from './release.contract';
import { slotRules } from './slots.contract';
import { unitRules } from './units.contract';
import { whitelistRules } from './whitelist.contract';
import { restrictionRules } from './restrictions.contract';
import { securityRules } from './security.contract';

export { T0 } from './helpers';

/** Define the contract tests for the store `factory` makes (one store for the whole suite; cleaned up after). */
export function describeStoreContract(name: string, factory: StoreFactory): void {
  describe(`store contract: ${name}`, () => {
    let made: Awaited<ReturnType<StoreFactory>> | null = null;
    const holder: StoreHolder = {
      get store(): Store {
        if (!made) throw new Error('the store factory has not run');
        return made.store;
      },
    };
    beforeAll(async () => {
      made = await factory();
    });
    afterAll(async () => {
      await made?.cleanup();
    });
    slotRules(holder);
    allowanceRules(holder);
    quotaRules(holder);
    refusalRules(holder);
    unitRules(holder);
    releaseRules(holder);
    ledgerHourRules(holder);
    keepRules(holder);
    accountRules(holder);
    keyRules(holder);
    keySecretRules(holder);
    whitelistRules(holder);
    propertyRules(holder);
    modelRules(holder);
    singleUseRules(holder);
    throttleRules(holder);
    listingRules(holder);
    receiptRules(holder);
    refundRules(holder);
    invoiceRules(holder);
    notificationRules(holder);
    restrictionRules(holder);
    accountLifecycleRules(holder);
    planPeriodRules(holder);
    securityRules(holder);
  });
}

/**
 * A store is one object per port, composed into one `Store` for the composition root (STYLE.md "Narrow ports").
 * Composition binds each port method of each part onto the store: a call through the store is one bound call of the
 * part's own method, no wrapper per request. A cross-cutting concern (e.g. a store's fault translation) may wrap the
 * management parts; the admission part is never wrapped (hot path).
 */
import type {
  AccountStore,
  AdmissionStore,
  AutoTopUpStore,
  BillingStore,
  ConsoleStore,
  KeyStore,
  Lifecycle,
  MarkStore,
  NotificationStore,
  SecurityStore,
  Store,
} from './ports';

/** What the admission part implements itself; the account reads of the port come from the accounts and keys parts. */
export type AdmissionCore = Omit<AdmissionStore, 'getAccount' | 'usage' | 'listSlots'>;

/** The parts of one store, one per port. */
export interface StoreParts {
  admission: AdmissionCore;
  accounts: AccountStore;
  keys: KeyStore;
  billing: BillingStore;
  notifications: NotificationStore;
  marks: MarkStore;
  console: ConsoleStore;
  autoTopUp: AutoTopUpStore;
  security: SecurityStore;
  lifecycle: Lifecycle;
}

/** Each port's method names (a Record, so the compiler checks the list is complete and exact). */
type Names<T> = Record<keyof T, true>;

const METHODS: { [P in keyof StoreParts]: Names<StoreParts[P]> } = {
  admission: {
    identityCacheStats: true,
    leaseStats: true,
    findKeyByHash: true,
    findWhitelistedAccount: true,
    admit: true,
    release: true,
    keep: true,
    recordRefusal: true,
  },
  accounts: {
    createAccount: true,
    getAccount: true,
    findAccountByEmail: true,
    setAccountStatus: true,
    setUnlimitedUntil: true,
    setPasswordHash: true,
    setEmail: true,
    listAccounts: true,
    usage: true,
    markEmailVerified: true,
    deleteAccount: true,
  },
  keys: {
    createKey: true,
    getKey: true,
    listKeys: true,
    listKeyPage: true,
    revokeKey: true,
    setKeyLabel: true,
    listSlots: true,
    addWhitelist: true,
    removeWhitelist: true,
    listWhitelist: true,
    setKeyRestrictions: true,
    rotateKey: true,
    setKeyExpiry: true,
    setKeyBurst: true,
    revokeKeyByHash: true,
  },
  billing: {
    credit: true,
    buyPackage: true,
    ledger: true,
    getBilling: true,
    setBilling: true,
    creditWithReceipt: true,
    buyPackageWithReceipt: true,
    listReceipts: true,
    getReceipt: true,
    refundTopUp: true,
    buyPlanPeriod: true,
    planPeriods: true,
  },
  notifications: {
    notificationSettings: true,
    setNotificationSettings: true,
    lowBalanceWatch: true,
    armLowBalance: true,
    listWebhookEndpoints: true,
    addWebhookEndpoint: true,
    removeWebhookEndpoint: true,
    recordNotification: true,
    claimDeliveries: true,
    finishDelivery: true,
    deliveryLog: true,
    unlimitedEnding: true,
    pruneNotifications: true,
  },
  marks: { consumeOnce: true, isConsumed: true, hitWindow: true },
  console: {
    createOperator: true,
    getOperator: true,
    findOperator: true,
    listOperators: true,
    findKeysByPrefix: true,
    receiptAccount: true,
    recordRefusals: true,
    recentRefusals: true,
    refusalsByCode: true,
    overview: true,
    recordAudit: true,
    auditLog: true,
  },
  autoTopUp: {
    autoTopUp: true,
    setAutoTopUp: true,
    setAutoTopUpCustomer: true,
    saveAutoTopUpCard: true,
    removeAutoTopUpCard: true,
    autoTopUpWatch: true,
    claimAutoTopUp: true,
    rearmAutoTopUp: true,
    setAutoTopUpIntent: true,
    finishAutoTopUp: true,
    autoTopUpAttempt: true,
    pendingAutoTopUps: true,
    autoTopUpAttempts: true,
  },
  security: {
    totpState: true,
    beginTotp: true,
    enableTotp: true,
    acceptTotpStep: true,
    useRecoveryCode: true,
    replaceRecoveryCodes: true,
    recoveryCodesLeft: true,
    disableTotp: true,
    keysExpiring: true,
    markKeyExpiryNotified: true,
  },
  lifecycle: { migrate: true, close: true, readiness: true },
};

/** Turns a failure a part threw into the store's own (e.g. a driver error into StoreUnavailableError). */
export type FaultMapper = (err: unknown) => unknown;

type Method = (...args: unknown[]) => unknown;

/** `fn` bound to `part`, its rejections mapped through `fault` when given. */
function bound(part: object, fn: Method, fault: FaultMapper | undefined): Method {
  if (!fault) return fn.bind(part);
  return async (...args: unknown[]) => {
    try {
      return await fn.apply(part, args);
    } catch (err) {
      throw fault(err);
    }
  };
}

/**
 * Put every port method of `parts` on `target`, bound to its part. `fault` wraps every part but admission (whose
 * methods map their own faults, without a wrapper per request).
 */
export function bindParts(target: object, parts: StoreParts, fault?: FaultMapper): void {
  const into = target as Record<string, Method>;
  for (const port of Object.keys(METHODS) as (keyof StoreParts)[]) {
    const part = parts[port] as unknown as Record<string, Method | undefined>;
    for (const name of Object.keys(METHODS[port])) {
      const fn = part[name];
      if (typeof fn === 'function') into[name] = bound(part, fn, port === 'admission' ? undefined : fault);
    }
  }
}

/**
 * Base class of a store facade: its instances are a `Store` made of `parts` (bindParts). The facade adds only what
 * its own maintenance needs (a sweep, a rebuild) for tests and benchmarks.
 */
export const ComposedStore = class {
  constructor(parts: StoreParts, fault?: FaultMapper) {
    bindParts(this, parts, fault);
  }
} as unknown as new (parts: StoreParts, fault?: FaultMapper) => Store;

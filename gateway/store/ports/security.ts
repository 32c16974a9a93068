/**
 * The security port: the dashboard's second factor (TOTP, recovery codes; migration 014) and the reminders of key
 * end dates (the notification sweep). Both stores keep these in their relational database, shared by every instance.
 */

/** An account's TOTP enrolment: pending (enabledAt null) or on. */
export interface TotpState {
  /** The secret as stored: sealed (dashboard/totp.ts), never the clear secret. */
  secret: string;
  createdAt: number;
  enabledAt: number | null;
  /** The newest 30-second step a code was accepted for; null before the first. */
  lastStep: number | null;
}

/** An active key with an end date whose owner was not yet reminded of it. */
export interface ExpiringKey {
  id: string;
  accountId: string;
  prefix: string;
  label: string | null;
  expiresAt: number;
}

/** Second-factor records and key-expiry reminders. Unknown account → StoreConflict('not_found'). */
export interface SecurityStore {
  /** The account's enrolment, or null when it has none. */
  totpState(accountId: string): Promise<TotpState | null>;
  /**
   * Start (or restart) an enrolment with a new sealed secret; false, changing nothing, when the second factor is
   * already on. Deleted account → 'account_deleted'.
   */
  beginTotp(accountId: string, sealedSecret: string, now: number): Promise<boolean>;
  /**
   * Turn the pending enrolment on, in one transaction: enabledAt and lastStep set (the confirming code is used), the
   * recovery codes replaced by `codeHashes`. False, changing nothing, when there is no pending enrolment (none, or
   * already on: a second confirmation loses).
   */
  enableTotp(accountId: string, step: number, codeHashes: string[], now: number): Promise<boolean>;
  /**
   * Accept a code of `step`: true when the second factor is on and no code of this step or a later one was accepted
   * (lastStep becomes `step`); false otherwise. Atomic: of concurrent calls with one step exactly one wins.
   */
  acceptTotpStep(accountId: string, step: number): Promise<boolean>;
  /** Spend an unused recovery code by its hash: true once (atomic), false when unknown or already used. */
  useRecoveryCode(accountId: string, codeHash: string, now: number): Promise<boolean>;
  /** Replace every recovery code of the account (the old ones stop working). */
  replaceRecoveryCodes(accountId: string, codeHashes: string[], now: number): Promise<void>;
  /** How many unused recovery codes the account has. */
  recoveryCodesLeft(accountId: string): Promise<number>;
  /** Remove the enrolment and the recovery codes; false when there was none. */
  disableTotp(accountId: string): Promise<boolean>;

  /**
   * Active keys whose end is in (from, to] and whose owner was not reminded since the end was set, in end order, at
   * most `limit` (1 to 1,000).
   */
  keysExpiring(from: number, to: number, limit: number): Promise<ExpiringKey[]>;
  /**
   * Record that the owner was reminded of the end `expiresAt` at `now`: true for the first caller only, false when
   * already recorded or when the key's end changed since (a new end is reminded of again). Atomic across instances.
   */
  markKeyExpiryNotified(id: string, expiresAt: number, now: number): Promise<boolean>;
}

/** The largest page of `keysExpiring`. */
export const EXPIRING_PAGE_MAX = 1_000;

/** A `keysExpiring` page size, checked (a bug otherwise, thrown). */
export function expiringPageSize(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > EXPIRING_PAGE_MAX) {
    throw new RangeError(
      `keysExpiring: limit must be an integer from 1 to ${EXPIRING_PAGE_MAX}, not ${limit}`,
    );
  }
  return limit;
}

type Row = Record<string, unknown>;
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** An account_totp row. */
export function toTotpState(r: Row): TotpState {
  return {
    secret: String(r['secret']),
    createdAt: Number(r['created_at']),
    enabledAt: numOrNull(r['enabled_at']),
    lastStep: numOrNull(r['last_step']),
  };
}

/** An api_keys row of the reminder's list. */
export function toExpiringKey(r: Row): ExpiringKey {
  return {
    id: String(r['id']),
    accountId: String(r['account_id']),
    prefix: String(r['prefix']),
    label: r['label'] === null || r['label'] === undefined ? null : String(r['label']),
    expiresAt: Number(r['expires_at']),
  };
}

/** The reminder's list, the same SQL on both stores (positional parameters: from, to, limit). */
export const EXPIRING_SELECT = `SELECT id, account_id, prefix, label, expires_at FROM api_keys
  WHERE status = 'active' AND expires_at > ? AND expires_at <= ? AND expiry_notified_at IS NULL
  ORDER BY expires_at, id LIMIT ?`;

/** Input checks and management decisions that both stores make the same way (before or around their own SQL). */
import { cidrRange, type AddressRange } from './ranges';
import { StoreConflict, type KeyBurst, type LedgerEntry, type NewKey } from './types';

/** Trimmed and lower-cased: e-mail addresses are unique case-insensitively. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Throw invalid_input unless `amount` is a positive safe integer (D16). */
export function requireUnits(what: string, amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new StoreConflict('invalid_input', `${what} must be a positive whole number of units`);
  }
}

/** Throw invalid_input unless a ledger page size is a safe integer ≥ 1. */
export function requireLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new StoreConflict('invalid_input', 'limit must be ≥ 1');
}

/** A package's key must belong to the account that pays for it (D17). */
export function requireKeyOfAccount(accountId: string, input: NewKey): void {
  if (input.accountId !== accountId) {
    throw new StoreConflict('invalid_input', 'the key must belong to the account');
  }
}

/** The block of an IP address or CIDR, or invalid_input naming it. */
export function requireCidr(cidr: string): AddressRange {
  const range = typeof cidr === 'string' ? cidrRange(cidr) : null;
  if (!range) throw new StoreConflict('invalid_input', `not an IP address or CIDR block: ${String(cidr)}`);
  return range;
}

/**
 * Of the whitelist rows overlapping a new block (D18): any of another account → whitelist_overlap; else the row of
 * the same block (added again: returned as is), or undefined (a new entry; overlaps within one account are harmless).
 */
export function sameWhitelistRow<R extends { account_id: unknown; cidr: unknown }>(
  overlapping: readonly R[],
  accountId: string,
  range: AddressRange,
): R | undefined {
  if (overlapping.some((r) => r.account_id !== accountId)) {
    throw new StoreConflict('whitelist_overlap', `${range.cidr} overlaps another account's whitelist`);
  }
  return overlapping.find((r) => r.cidr === range.cidr);
}

/** A repeated top-up (same idempotency key) must repeat the same amount; else idempotency_mismatch. */
export function requireSameTopup(prior: LedgerEntry, amount: number): void {
  if (prior.kind !== 'topup' || prior.amount !== amount) {
    throw new StoreConflict('idempotency_mismatch', 'this idempotency key was used with another amount');
  }
}

/** The most requests a burst window may be set to (the config's bound too). */
export const MAX_BURST = 1_000_000_000;

/** Throw invalid_input unless a key's own burst limits are null or name at least one window of a whole number ≥ 1. */
export function requireKeyBurst(burst: KeyBurst | null): void {
  if (burst === null) return;
  const windows = [burst.perSecond, burst.perMinute].filter((v) => v !== undefined);
  if (windows.length === 0) {
    throw new StoreConflict(
      'invalid_input',
      'burst limits need perSecond, perMinute or both (or null for none)',
    );
  }
  for (const v of windows) {
    if (!Number.isSafeInteger(v) || (v as number) < 1 || (v as number) > MAX_BURST) {
      throw new StoreConflict('invalid_input', `burst limits must be whole numbers from 1 to ${MAX_BURST}`);
    }
  }
}

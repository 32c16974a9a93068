/** Database rows of the embedded store and their mapping to the interface's records. */
import type { Account, ApiKey, LedgerEntry, UsageRow, WhitelistEntry } from '../types';

export interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  status: Account['status'];
  balance: number;
  unlimited_until: number | null;
  created_at: number;
}

export interface KeyRow {
  id: string;
  account_id: string;
  prefix: string;
  label: string | null;
  kind: ApiKey['kind'];
  package_until: number | null;
  status: ApiKey['status'];
  created_at: number;
  revoked_at: number | null;
}

/** A key row joined with its account, key columns prefixed `k_`. */
export type KeyIdentityRow = AccountRow & { [K in keyof KeyRow as `k_${K}`]: KeyRow[K] };

export interface WhitelistRow {
  id: string;
  account_id: string;
  cidr: string;
  created_at: number;
}

export interface LedgerRow {
  id: string;
  account_id: string;
  amount: number;
  kind: LedgerEntry['kind'];
  key_id: string | null;
  ref: string | null;
  created_at: number;
}

/** Map an accounts row. */
export function toAccount(r: AccountRow): Account {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    passwordHash: r.password_hash,
    status: r.status,
    balance: r.balance,
    unlimitedUntil: r.unlimited_until,
    createdAt: r.created_at,
  };
}

/** Map an api_keys row. */
export function toKey(r: KeyRow): ApiKey {
  return {
    id: r.id,
    accountId: r.account_id,
    prefix: r.prefix,
    label: r.label,
    kind: r.kind,
    packageUntil: r.package_until,
    status: r.status,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  };
}

/** Map a key row joined with its account. */
export function toKeyFromJoined(r: KeyIdentityRow): ApiKey {
  return toKey({
    id: r.k_id,
    account_id: r.k_account_id,
    prefix: r.k_prefix,
    label: r.k_label,
    kind: r.k_kind,
    package_until: r.k_package_until,
    status: r.k_status,
    created_at: r.k_created_at,
    revoked_at: r.k_revoked_at,
  });
}

/** Map a whitelist row. */
export function toWhitelist(r: WhitelistRow): WhitelistEntry {
  return { id: r.id, accountId: r.account_id, cidr: r.cidr, createdAt: r.created_at };
}

/** Map a ledger row. */
export function toLedger(r: LedgerRow): LedgerEntry {
  return {
    id: r.id,
    accountId: r.account_id,
    amount: r.amount,
    kind: r.kind,
    keyId: r.key_id,
    ref: r.ref,
    createdAt: r.created_at,
  };
}

/** Map a usage_daily row (its columns already have the interface's names). */
export function toUsage(r: UsageRow): UsageRow {
  return { day: r.day, subject: r.subject, free: r.free, billed: r.billed, refused: r.refused };
}

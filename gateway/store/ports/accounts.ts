/** The accounts port: accounts, their e-mail and status, listing, usage history and the account lifecycle. */
import type { AccountQuery } from '../listing';
import type { Account, AccountStatus, NewAccount, UsageRow } from '../types';

/**
 * Accounts (admin API, CLI, dashboard through the accounts service). Operations on an unknown account id →
 * StoreConflict('not_found').
 */
export interface AccountStore {
  /** Create an active account with balance 0; the e-mail is unique case-insensitively (taken → 'email_taken'). */
  createAccount(input: NewAccount, now: number): Promise<Account>;
  getAccount(id: string): Promise<Account | null>;
  /** Case-insensitive, surrounding spaces ignored. */
  findAccountByEmail(email: string): Promise<Account | null>;
  setAccountStatus(id: string, status: AccountStatus): Promise<Account>;
  /** B: set or clear the Unlimited plan (D17). */
  setUnlimitedUntil(id: string, until: number | null): Promise<Account>;
  setPasswordHash(id: string, hash: string): Promise<void>;
  /** Change the account's e-mail (unique case-insensitively: taken by another → 'email_taken'; unknown → not_found). */
  setEmail(id: string, email: string): Promise<Account>;
  /** Admin listing: one page of accounts, filtered and ordered (gateway/store/listing.ts). */
  listAccounts(query: AccountQuery): Promise<Account[]>;
  /** Usage rows for these subjects between two UTC days inclusive, ordered by day. */
  usage(subjects: string[], fromDay: string, toDay: string): Promise<UsageRow[]>;

  /*
   * --- account lifecycle (e-mail verification, account deletion; migration 007) ---
   * A deleted account is kept for accounting and changed by no one: every management write naming it (status, plan,
   * password, e-mail, credit, createKey, buyPackage, addWhitelist, markEmailVerified, deleteAccount) throws
   * StoreConflict('account_deleted'); reads (getAccount, listKeys, ledger, usage…) still answer.
   */
  /**
   * Record that the account's e-mail address is proven at `now`; already verified → unchanged (the first time is
   * kept). Unknown → not_found; deleted → account_deleted.
   */
  markEmailVerified(id: string, now: number): Promise<Account>;
  /**
   * Delete the account for its owner, all at once: every active key revoked at `now`, every whitelist entry and IP
   * slot removed, the e-mail replaced by `tombstone` (so the address can sign up again), name and password hash
   * erased, the balance forfeited (one ledger row, kind 'adjustment', ref 'account-deleted', amount −balance, when
   * the balance was above 0), status 'deleted' and deletedAt `now`. Ledger rows and usage stay under the account id.
   * Key identities cached by any instance stop within 1 s (D19). Unknown → not_found; already deleted →
   * account_deleted (nothing changes). Returns the deleted account and what was forfeited.
   */
  deleteAccount(id: string, tombstone: string, now: number): Promise<{ account: Account; forfeited: number }>;
}

/** The embedded store's accounts part (AccountStore): accounts, listing, usage history and the account lifecycle. */
import type Database from 'better-sqlite3';
import type { Knex } from 'knex';
import { normaliseEmail } from '../checks';
import type { AccountQuery } from '../listing';
import type { AccountStore } from '../ports';
import { toAccount } from '../rows';
import type { Account, AccountStatus, NewAccount, UsageRow } from '../types';
import * as lifecycle from './account-lifecycle';
import * as accounts from './accounts';
import * as listing from './listing';
import * as reports from './reports';

/** Accounts on one SQLite connection; `changed` forgets cached key identities (a change is seen at once). */
export class EmbeddedAccounts implements AccountStore {
  constructor(
    private readonly db: Database.Database,
    private readonly knex: Knex,
    private readonly changed: <T>(result: T) => T,
  ) {}

  async createAccount(input: NewAccount, now: number): Promise<Account> {
    return accounts.createAccount(this.db, input, now);
  }
  async getAccount(id: string): Promise<Account | null> {
    const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as object | undefined;
    return row ? toAccount(row) : null;
  }
  async findAccountByEmail(email: string): Promise<Account | null> {
    const norm = normaliseEmail(email);
    const row = this.db.prepare('SELECT * FROM accounts WHERE email_norm = ?').get(norm) as
      object | undefined;
    return row ? toAccount(row) : null;
  }
  async setAccountStatus(id: string, status: AccountStatus): Promise<Account> {
    return this.changed(accounts.updateAccount(this.db, id, 'status', status));
  }
  async setUnlimitedUntil(id: string, until: number | null): Promise<Account> {
    return this.changed(accounts.updateAccount(this.db, id, 'unlimited_until', until));
  }
  async setPasswordHash(id: string, hash: string): Promise<void> {
    this.changed(accounts.updateAccount(this.db, id, 'password_hash', hash));
  }
  async setEmail(id: string, email: string): Promise<Account> {
    return this.changed(accounts.setEmail(this.db, id, email));
  }
  async listAccounts(query: AccountQuery): Promise<Account[]> {
    return listing.listAccounts(this.knex, query);
  }
  async usage(subjects: string[], fromDay: string, toDay: string): Promise<UsageRow[]> {
    return reports.usage(this.db, subjects, fromDay, toDay);
  }
  async markEmailVerified(id: string, now: number): Promise<Account> {
    return this.changed(lifecycle.markEmailVerified(this.db, id, now));
  }
  async deleteAccount(
    id: string,
    tombstone: string,
    now: number,
  ): Promise<{ account: Account; forfeited: number }> {
    // Cached key records of the account are revoked now: seen at once through this store, like revokeKey.
    return this.changed(lifecycle.deleteAccount(this.db, id, tombstone, now));
  }
}

/** The shared store's accounts part (AccountStore): accounts in PostgreSQL, balances from Redis, the lifecycle. */
import { normaliseEmail } from '../checks';
import type { AccountQuery } from '../listing';
import type { AccountStore } from '../ports';
import { toAccount, toUsage } from '../rows';
import { StoreConflict, type Account, type AccountStatus, type NewAccount, type UsageRow } from '../types';
import * as lifecycle from './account-lifecycle';
import type { SharedContext } from './context';
import * as listing from './listing';
import * as pga from './pg-accounts';

/** Accounts of one shared store. */
export class SharedAccounts implements AccountStore {
  constructor(private readonly c: SharedContext) {}

  createAccount(input: NewAccount, now: number): Promise<Account> {
    return this.c.pg(() => pga.createAccount(this.c.knex, input, now));
  }

  async getAccount(id: string): Promise<Account | null> {
    const a = await this.c.pg(() => this.c.accountRow(id));
    return a ? this.c.withBalance(a) : null;
  }

  async findAccountByEmail(email: string): Promise<Account | null> {
    const row = await this.c.pg(() =>
      this.c
        .knex('accounts')
        .where({ email_norm: normaliseEmail(String(email)) })
        .first(),
    );
    return row ? this.c.withBalance(toAccount(row)) : null;
  }

  private async updateAccount(
    id: string,
    column: 'status' | 'unlimited_until' | 'password_hash',
    value: string | number | null,
  ): Promise<Account> {
    const a = await this.c.pg(() => pga.updateAccount(this.c.knex, id, column, value));
    await this.c.changed({ k: 'account', id });
    return this.c.withBalance(a);
  }

  setAccountStatus(id: string, status: AccountStatus): Promise<Account> {
    return this.updateAccount(id, 'status', status);
  }

  setUnlimitedUntil(id: string, until: number | null): Promise<Account> {
    return this.updateAccount(id, 'unlimited_until', until);
  }

  async setPasswordHash(id: string, hash: string): Promise<void> {
    await this.updateAccount(id, 'password_hash', hash);
  }

  async setEmail(id: string, email: string): Promise<Account> {
    const a = await this.c.pg(() => pga.setEmail(this.c.knex, id, email));
    await this.c.changed({ k: 'account', id });
    return this.c.withBalance(a);
  }

  listAccounts(query: AccountQuery): Promise<Account[]> {
    return this.c.pg(() => listing.listAccounts(this.c.knex, query, (a) => this.c.withBalance(a)));
  }

  async usage(subjects: string[], fromDay: string, toDay: string): Promise<UsageRow[]> {
    if (subjects.length === 0) return [];
    await this.c.flushForRead();
    const rows = await this.c.pg(() =>
      this.c
        .knex('usage_daily')
        .whereIn('subject', subjects)
        .andWhere('day', '>=', fromDay)
        .andWhere('day', '<=', toDay)
        .orderBy([{ column: 'day' }, { column: 'subject' }]),
    );
    return rows.map(toUsage);
  }

  async markEmailVerified(id: string, now: number): Promise<Account> {
    const a = await this.c.pg(() => lifecycle.markEmailVerified(this.c.knex, id, now));
    await this.c.changed({ k: 'account', id });
    return this.c.withBalance(a);
  }

  /**
   * PostgreSQL first (keys revoked, data erased, one transaction), then Redis (balance forfeited, slots dropped) and
   * the invalidations that stop every instance's cached key identities within the bus's delay. A Redis fault after
   * the commit leaves the forfeit undone: calling again on the deleted account finishes it, then answers
   * account_deleted.
   */
  async deleteAccount(
    id: string,
    tombstone: string,
    now: number,
  ): Promise<{ account: Account; forfeited: number }> {
    const c = this.c;
    const init = (a: string) => c.wallets.init(a);
    let erased: lifecycle.Erased;
    try {
      erased = await c.pg(() => lifecycle.erasePg(c.knex, id, tombstone, now));
    } catch (err) {
      if (err instanceof StoreConflict && err.reason === 'account_deleted') {
        await lifecycle.forfeitWallet(c.redis, c.layout, init, id, now);
        await c.settleLedger();
      }
      throw err;
    }
    for (const k of erased.keys) await c.changed({ k: 'key', hash: k.hash });
    await c.changed({ k: 'account', id });
    await c.changed({ k: 'whitelist' });
    const forfeited = await lifecycle.forfeitWallet(c.redis, c.layout, init, id, now);
    await lifecycle.dropSlots(
      c.redis,
      c.layout,
      id,
      erased.keys.map((k) => k.id),
    );
    await c.settleLedger();
    return { account: { ...erased.account, balance: 0 }, forfeited };
  }
}

/** Accounts, credit and packages of the embedded store: each write is one synchronous transaction. */
import type Database from 'better-sqlite3';
import { requireKeyOfAccount, requireSameTopup, requireUnits } from '../checks';
import { newOrderedId } from '../ids';
import { normaliseEmail } from '../checks';
import { newAccountRow, toAccount, toLedger } from '../rows';
import {
  StoreConflict,
  type Account,
  type AccountStatus,
  type ApiKey,
  type LedgerEntry,
  type NewAccount,
  type NewKey,
} from '../types';
import { insertKey } from './keys';

/** A ledger row as this store inserts it. */
export interface LedgerRow {
  id: string;
  account_id: string;
  amount: number;
  kind: LedgerEntry['kind'];
  key_id: string | null;
  ref: string | null;
  created_at: number;
}

/** The account, or StoreConflict('not_found'). */
export function requireAccount(db: Database.Database, id: string): Account {
  const row = db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as object | undefined;
  if (!row) throw new StoreConflict('not_found', `account ${id} not found`);
  return toAccount(row);
}

/** The account, refused when deleted (account_deleted) or unknown (not_found): the guard of every write. */
export function requireLiveAccount(db: Database.Database, id: string): Account {
  const account = requireAccount(db, id);
  if (account.status === 'deleted') throw new StoreConflict('account_deleted', `account ${id} is deleted`);
  return account;
}

/** Create an account (active, balance 0); a taken e-mail → StoreConflict('email_taken'). */
export function createAccount(db: Database.Database, input: NewAccount, now: number): Account {
  const row = newAccountRow(input, now);
  return db
    .transaction(() => {
      if (db.prepare('SELECT 1 FROM accounts WHERE email_norm = ?').get(row.email_norm)) {
        throw new StoreConflict('email_taken', 'an account with this email exists');
      }
      db.prepare(
        `INSERT INTO accounts (id, email, email_norm, name, password_hash, status, balance, unlimited_until, created_at,
         email_verified_at, deleted_at)
       VALUES (@id, @email, @email_norm, @name, @password_hash, @status, @balance, @unlimited_until, @created_at,
         @email_verified_at, @deleted_at)`,
      ).run(row);
      return toAccount(row);
    })
    .immediate();
}

/** Change an account's e-mail; taken by another account → email_taken, unknown id → not_found. */
export function setEmail(db: Database.Database, id: string, input: string): Account {
  const email = input.trim();
  if (email === '' || email.length > 320) throw new StoreConflict('invalid_input', 'email is required');
  const norm = normaliseEmail(email);
  return db
    .transaction(() => {
      requireLiveAccount(db, id);
      const other = db.prepare('SELECT id FROM accounts WHERE email_norm = ? AND id <> ?').get(norm, id);
      if (other) throw new StoreConflict('email_taken', 'an account with this email exists');
      db.prepare('UPDATE accounts SET email = ?, email_norm = ? WHERE id = ?').run(email, norm, id);
      return requireAccount(db, id);
    })
    .immediate();
}

/** Update one column of an account and return it; unknown id → not_found. */
export function updateAccount(
  db: Database.Database,
  id: string,
  column: 'status' | 'unlimited_until' | 'password_hash',
  value: AccountStatus | number | string | null,
): Account {
  return db
    .transaction(() => {
      requireLiveAccount(db, id);
      db.prepare(`UPDATE accounts SET ${column} = ? WHERE id = ?`).run(value, id);
      return requireAccount(db, id);
    })
    .immediate();
}

/** Add credit once per (account, idempotency key); see Store.credit. */
export function credit(
  db: Database.Database,
  accountId: string,
  amount: number,
  idempotencyKey: string | null,
  now: number,
): { entry: LedgerEntry; balance: number; replayed: boolean } {
  requireUnits('amount', amount);
  return db
    .transaction(() => {
      const account = requireLiveAccount(db, accountId);
      if (idempotencyKey !== null) {
        const prior = db
          .prepare('SELECT * FROM ledger WHERE account_id = ? AND ref = ?')
          .get(accountId, idempotencyKey) as object | undefined;
        if (prior) {
          const entry = toLedger(prior);
          requireSameTopup(entry, amount);
          return { entry, balance: account.balance, replayed: true };
        }
      }
      if (!Number.isSafeInteger(account.balance + amount))
        throw new StoreConflict('invalid_input', 'amount too large');
      db.prepare('UPDATE accounts SET balance = balance + ? WHERE id = ?').run(amount, accountId);
      const row: LedgerRow = {
        id: newOrderedId('led'),
        account_id: accountId,
        amount,
        kind: 'topup',
        key_id: null,
        ref: idempotencyKey,
        created_at: now,
      };
      insertLedger(db, row);
      return { entry: toLedger(row), balance: account.balance + amount, replayed: false };
    })
    .immediate();
}

/** Insert one ledger row. */
export function insertLedger(db: Database.Database, row: LedgerRow): void {
  db.prepare(
    `INSERT INTO ledger (id, account_id, amount, kind, key_id, ref, created_at)
     VALUES (@id, @account_id, @amount, @kind, @key_id, @ref, @created_at)`,
  ).run(row);
}

/** A: debit the package price and create its Unlimited key, atomically (D17). */
export function buyPackage(
  db: Database.Database,
  accountId: string,
  price: number,
  input: NewKey,
  now: number,
): { key: ApiKey; balance: number } {
  requireUnits('price', price);
  requireKeyOfAccount(accountId, input);
  return db
    .transaction(() => {
      const account = requireLiveAccount(db, accountId);
      if (account.balance < price) {
        throw new StoreConflict('insufficient_balance', 'the balance does not cover the package');
      }
      db.prepare('UPDATE accounts SET balance = balance - ? WHERE id = ?').run(price, accountId);
      const key = insertKey(db, input, now);
      insertLedger(db, {
        id: newOrderedId('led'),
        account_id: accountId,
        amount: -price,
        kind: 'package',
        key_id: key.id,
        ref: null,
        created_at: now,
      });
      return { key, balance: account.balance - price };
    })
    .immediate();
}

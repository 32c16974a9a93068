/** Accounts, keys and whitelist in PostgreSQL (the shared store's management operations). */
import type { Knex } from 'knex';
import { normaliseEmail, requireCidr, sameWhitelistRow } from '../checks';
import { newAccountRow, newKeyRow, newWhitelistRow, toAccount, toKey, toWhitelist } from '../rows';
import {
  StoreConflict,
  type Account,
  type AccountStatus,
  type ApiKey,
  type NewAccount,
  type NewKey,
  type WhitelistEntry,
} from '../types';
import { isUniqueViolation } from './pg';

/** The account, or StoreConflict('not_found'). */
export async function requireAccount(db: Knex | Knex.Transaction, id: string): Promise<Account> {
  const row = await db('accounts').where({ id }).first();
  if (!row) throw new StoreConflict('not_found', `account ${id} not found`);
  return toAccount(row);
}

/** The account, refused when deleted (account_deleted) or unknown (not_found): the guard of every write. */
export async function requireLiveAccount(db: Knex | Knex.Transaction, id: string): Promise<Account> {
  const account = await requireAccount(db, id);
  if (account.status === 'deleted') throw new StoreConflict('account_deleted', `account ${id} is deleted`);
  return account;
}

/** Create an account (active, balance 0); a taken e-mail → email_taken. */
export async function createAccount(db: Knex, input: NewAccount, now: number): Promise<Account> {
  const row = newAccountRow(input, now);
  try {
    await db('accounts').insert(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new StoreConflict('email_taken', 'an account with this email exists');
    throw err;
  }
  return toAccount(row);
}

/** Update one column of an account and return it; unknown id → not_found. */
export async function updateAccount(
  db: Knex,
  id: string,
  column: 'status' | 'unlimited_until' | 'password_hash',
  value: AccountStatus | number | string | null,
): Promise<Account> {
  const rows = await db('accounts')
    .where({ id })
    .whereNot({ status: 'deleted' })
    .update({ [column]: value })
    .returning('*');
  const row = rows[0];
  if (!row) return requireLiveAccount(db, id); // throws: unknown or deleted
  return toAccount(row);
}

/** Change an account's e-mail; taken by another account → email_taken, unknown id → not_found. */
export async function setEmail(db: Knex, id: string, input: string): Promise<Account> {
  const email = input.trim();
  if (email === '' || email.length > 320) throw new StoreConflict('invalid_input', 'email is required');
  let rows;
  try {
    rows = await db('accounts')
      .where({ id })
      .whereNot({ status: 'deleted' })
      .update({ email, email_norm: normaliseEmail(email) })
      .returning('*');
  } catch (err) {
    if (isUniqueViolation(err)) throw new StoreConflict('email_taken', 'an account with this email exists');
    throw err;
  }
  const row = rows[0];
  if (!row) return requireLiveAccount(db, id); // throws: unknown or deleted
  return toAccount(row);
}

/** Insert a key for an existing account; unknown account → not_found. */
export async function insertKey(db: Knex | Knex.Transaction, input: NewKey, now: number): Promise<ApiKey> {
  const row = newKeyRow(input, now);
  await requireLiveAccount(db, input.accountId);
  await db('api_keys').insert(row);
  return toKey(row);
}

/** Revoke an active key; unknown → not_found, already revoked → already_revoked. */
export async function revokeKey(db: Knex, id: string, now: number): Promise<{ key: ApiKey; hash: string }> {
  const rows = await db('api_keys')
    .where({ id, status: 'active' })
    .update({ status: 'revoked', revoked_at: now })
    .returning('*');
  const row = rows[0];
  if (row) return { key: toKey(row), hash: String(row.hash) };
  const existing = await db('api_keys').where({ id }).first();
  if (!existing) throw new StoreConflict('not_found', `key ${id} not found`);
  throw new StoreConflict('already_revoked', `key ${id} is already revoked`);
}

/** Set a key's label; unknown → not_found. */
export async function setKeyLabel(
  db: Knex,
  id: string,
  label: string | null,
): Promise<{ key: ApiKey; hash: string }> {
  const rows = await db('api_keys').where({ id }).update({ label }).returning('*');
  const row = rows[0];
  if (!row) throw new StoreConflict('not_found', `key ${id} not found`);
  return { key: toKey(row), hash: String(row.hash) };
}

/** Keys of an account, oldest first; unknown account → not_found. */
export async function listKeys(db: Knex, accountId: string): Promise<ApiKey[]> {
  await requireAccount(db, accountId);
  const rows = await db('api_keys')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map((r: Record<string, unknown>) => toKey(r));
}

/**
 * Add a whitelist entry (D18): overlap with another account's entry → whitelist_overlap; the same block again for
 * the same account returns the existing entry. An advisory lock serialises additions across instances.
 */
export async function addWhitelist(
  db: Knex,
  accountId: string,
  cidr: string,
  now: number,
): Promise<WhitelistEntry> {
  const range = requireCidr(cidr);
  return db.transaction(async (trx) => {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtext('geogate:whitelist'))");
    await requireLiveAccount(trx, accountId);
    const overlapping = await trx('whitelist')
      .where({ family: range.family })
      .andWhere('range_start', '<=', range.end)
      .andWhere('range_end', '>=', range.start);
    const same = sameWhitelistRow(overlapping, accountId, range);
    if (same) return toWhitelist(same);
    const row = newWhitelistRow(accountId, range, now);
    await trx('whitelist').insert(row);
    return toWhitelist(row);
  });
}

/** Remove an entry of this account; unknown (or another account's) → not_found. */
export async function removeWhitelist(db: Knex, accountId: string, entryId: string): Promise<void> {
  const n = await db('whitelist').where({ id: entryId, account_id: accountId }).delete();
  if (n === 0) throw new StoreConflict('not_found', `whitelist entry ${entryId} not found`);
}

/** Entries of an account, oldest first; unknown account → not_found. */
export async function listWhitelist(db: Knex, accountId: string): Promise<WhitelistEntry[]> {
  await requireAccount(db, accountId);
  const rows = await db('whitelist')
    .where({ account_id: accountId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(toWhitelist);
}

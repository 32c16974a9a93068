/** Accounts, keys and whitelist in PostgreSQL (the shared store's management operations). */
import type { Knex } from 'knex';
import { newId } from '../ids';
import { cidrRange } from '../ranges';
import {
  StoreConflict,
  type Account,
  type AccountStatus,
  type ApiKey,
  type NewAccount,
  type NewKey,
  type WhitelistEntry,
} from '../types';
import { isUniqueViolation, toAccount, toKey, toWhitelist } from './pg';

/** Trimmed and lower-cased: e-mail addresses are unique case-insensitively (as in the embedded store). */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Throw invalid_input unless `amount` is a positive safe integer (D16). */
export function requireUnits(what: string, amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new StoreConflict('invalid_input', `${what} must be a positive whole number of units`);
  }
}

/** The account, or StoreConflict('not_found'). */
export async function requireAccount(db: Knex | Knex.Transaction, id: string): Promise<Account> {
  const row = await db('accounts').where({ id }).first();
  if (!row) throw new StoreConflict('not_found', `account ${id} not found`);
  return toAccount(row);
}

/** Create an account (active, balance 0); a taken e-mail → email_taken. */
export async function createAccount(db: Knex, input: NewAccount, now: number): Promise<Account> {
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  if (email === '' || email.length > 320) throw new StoreConflict('invalid_input', 'email is required');
  const row = {
    id: newId('acc'),
    email,
    email_norm: normaliseEmail(email),
    name: input.name ?? null,
    password_hash: input.passwordHash ?? null,
    status: 'active',
    balance: 0,
    unlimited_until: null,
    created_at: now,
  };
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
    .update({ [column]: value })
    .returning('*');
  const row = rows[0];
  if (!row) throw new StoreConflict('not_found', `account ${id} not found`);
  return toAccount(row);
}

const KINDS: readonly string[] = ['payg', 'unlimited'];

/** Insert a key for an existing account; unknown account → not_found. */
export async function insertKey(db: Knex | Knex.Transaction, input: NewKey, now: number): Promise<ApiKey> {
  if (typeof input.hash !== 'string' || input.hash === '' || !KINDS.includes(input.kind)) {
    throw new StoreConflict('invalid_input', 'a key needs a hash and a kind (payg or unlimited)');
  }
  await requireAccount(db, input.accountId);
  const row = {
    id: newId('key'),
    account_id: input.accountId,
    hash: input.hash,
    prefix: input.prefix,
    label: input.label ?? null,
    kind: input.kind,
    package_until: input.packageUntil ?? null,
    status: 'active',
    created_at: now,
    revoked_at: null,
  };
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
  const range = typeof cidr === 'string' ? cidrRange(cidr) : null;
  if (!range) throw new StoreConflict('invalid_input', `not an IP address or CIDR block: ${String(cidr)}`);
  return db.transaction(async (trx) => {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtext('geogate:whitelist'))");
    await requireAccount(trx, accountId);
    const overlapping = await trx('whitelist')
      .where({ family: range.family })
      .andWhere('range_start', '<=', range.end)
      .andWhere('range_end', '>=', range.start);
    if (overlapping.some((r: Record<string, unknown>) => r.account_id !== accountId)) {
      throw new StoreConflict('whitelist_overlap', `${range.cidr} overlaps another account's whitelist`);
    }
    const same = overlapping.find((r: Record<string, unknown>) => r.cidr === range.cidr);
    if (same) return toWhitelist(same);
    const row = {
      id: newId('wl'),
      account_id: accountId,
      cidr: range.cidr,
      family: range.family,
      range_start: range.start,
      range_end: range.end,
      created_at: now,
    };
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

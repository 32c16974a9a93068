/**
 * The one mapping between the schema's rows (migrations/) and the Store's records, for both stores. SQLite returns
 * integer columns as numbers, PostgreSQL returns bigint columns as strings: both go through Number (safe below
 * 2^53, D16); a null (or absent) nullable column stays null.
 */
import { newId } from './ids';
import type { AddressRange } from './ranges';
import { readRestrictions } from './restrictions';
import { normaliseEmail } from './checks';
import {
  StoreConflict,
  type Account,
  type ApiKey,
  type KeyBurst,
  type KeyIdentity,
  type LedgerEntry,
  type NewAccount,
  type NewKey,
  type UsageRow,
  type WhitelistEntry,
} from './types';

type Cells = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** Map an accounts row (or the account columns of a joined key row). */
export function toAccount(row: object): Account {
  const r = row as Cells;
  return {
    id: String(r.id),
    email: String(r.email),
    name: strOrNull(r.name),
    passwordHash: strOrNull(r.password_hash),
    status: r.status as Account['status'],
    balance: num(r.balance),
    unlimitedUntil: numOrNull(r.unlimited_until),
    createdAt: num(r.created_at),
    emailVerifiedAt: numOrNull(r.email_verified_at),
    deletedAt: numOrNull(r.deleted_at),
  };
}

/** The api_keys columns a key record is made of (a join selects them as `k_<column>`). */
export const KEY_COLUMNS = [
  'id',
  'account_id',
  'prefix',
  'label',
  'kind',
  'package_until',
  'status',
  'created_at',
  'revoked_at',
  'restrictions',
  'test',
  'rotated_at',
  'previous_until',
  'expires_at',
  'burst_per_second',
  'burst_per_minute',
] as const;
type KeyColumn = (typeof KEY_COLUMNS)[number];

// Column names per prefix, built once: findKeyByHash maps a joined row on every identification.
const keyNames = new Map<string, Record<KeyColumn, string>>();
function namesFor(prefix: string): Record<KeyColumn, string> {
  let names = keyNames.get(prefix);
  if (!names) {
    names = Object.fromEntries(KEY_COLUMNS.map((c) => [c, `${prefix}${c}`])) as Record<KeyColumn, string>;
    keyNames.set(prefix, names);
  }
  return names;
}

/** Map an api_keys row, or the `k_`-prefixed key columns of a key row joined with its account (prefix 'k_'). */
export function toKey(row: object, prefix = ''): ApiKey {
  const r = row as Cells;
  const c = namesFor(prefix);
  const key: ApiKey = {
    id: String(r[c.id]),
    accountId: String(r[c.account_id]),
    prefix: String(r[c.prefix]),
    label: strOrNull(r[c.label]),
    kind: r[c.kind] as ApiKey['kind'],
    packageUntil: numOrNull(r[c.package_until]),
    status: r[c.status] as ApiKey['status'],
    createdAt: num(r[c.created_at]),
    revokedAt: numOrNull(r[c.revoked_at]),
  };
  const restrictions = r[c.restrictions];
  // Absent when none: a key without restrictions costs the request path one undefined check (D29).
  if (restrictions !== null && restrictions !== undefined) key.restrictions = readRestrictions(restrictions);
  // D39, D40: absent when unset, like restrictions (SQLite gives the boolean as 0/1, PostgreSQL as a boolean).
  const test = r[c.test];
  if (test === true || test === 1) key.test = true;
  const rotatedAt = r[c.rotated_at];
  if (rotatedAt !== null && rotatedAt !== undefined) key.rotatedAt = num(rotatedAt);
  const previousUntil = r[c.previous_until];
  if (previousUntil !== null && previousUntil !== undefined) key.previousUntil = num(previousUntil);
  const expiresAt = r[c.expires_at];
  if (expiresAt !== null && expiresAt !== undefined) key.expiresAt = num(expiresAt);
  // Burst limits of the key's own: absent when none, so a key without them costs the request path one check.
  const perSecond = r[c.burst_per_second];
  const perMinute = r[c.burst_per_minute];
  if ((perSecond !== null && perSecond !== undefined) || (perMinute !== null && perMinute !== undefined)) {
    const burst: KeyBurst = {};
    if (perSecond !== null && perSecond !== undefined) burst.perSecond = num(perSecond);
    if (perMinute !== null && perMinute !== undefined) burst.perMinute = num(perMinute);
    key.burst = burst;
  }
  return key;
}

/**
 * Map a key row joined with its account: the account's columns as is, the key's prefixed `k_`; `secret_until` set
 * when the row was found by the secret before a rotation (D39).
 */
export function toKeyIdentity(row: object): KeyIdentity {
  const identity: KeyIdentity = { key: toKey(row, 'k_'), account: toAccount(row) };
  const until = (row as Cells).secret_until;
  if (until !== null && until !== undefined) identity.secretUntil = num(until);
  return identity;
}

/** Map a whitelist row. */
export function toWhitelist(row: object): WhitelistEntry {
  const r = row as Cells;
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    cidr: String(r.cidr),
    createdAt: num(r.created_at),
  };
}

/** Map a ledger row. */
export function toLedger(row: object): LedgerEntry {
  const r = row as Cells;
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    amount: num(r.amount),
    kind: r.kind as LedgerEntry['kind'],
    keyId: strOrNull(r.key_id),
    ref: strOrNull(r.ref),
    createdAt: num(r.created_at),
    count: numOrNull(r.count) ?? legacyChargeCount(r),
    hourStart: numOrNull(r.hour_start),
  };
}

/**
 * A charge row without a count (D35, migration 009): one request when it is a per-request row recorded before 009
 * (ref = its admission id); unknown (null) when it is an hourly row whose count a rollback of 009 dropped.
 */
function legacyChargeCount(r: Cells): number | null {
  return r.kind === 'charge' && !String(r.ref ?? '').startsWith('charge ') ? 1 : null;
}

/** Map a usage_daily row. */
export function toUsage(row: object): UsageRow {
  const r = row as Cells;
  return {
    day: String(r.day),
    subject: String(r.subject),
    free: num(r.free),
    billed: num(r.billed),
    refused: num(r.refused),
  };
}

/** A new accounts row, as both stores insert it. */
export interface AccountInsertRow {
  id: string;
  email: string;
  email_norm: string;
  name: string | null;
  password_hash: string | null;
  status: 'active';
  balance: number;
  unlimited_until: null;
  created_at: number;
  email_verified_at: number | null;
  deleted_at: null;
}

/** Check a NewAccount (email required, ≤ 320 characters) and build its row: active, balance 0, a new id. */
export function newAccountRow(input: NewAccount, now: number): AccountInsertRow {
  const email = typeof input.email === 'string' ? input.email.trim() : '';
  if (email === '' || email.length > 320) throw new StoreConflict('invalid_input', 'email is required');
  return {
    id: newId('acc'),
    email,
    email_norm: normaliseEmail(email),
    name: input.name ?? null,
    password_hash: input.passwordHash ?? null,
    status: 'active',
    balance: 0,
    unlimited_until: null,
    created_at: now,
    email_verified_at: input.emailVerifiedAt === undefined ? now : input.emailVerifiedAt,
    deleted_at: null,
  };
}

/** A new api_keys row, as both stores insert it (D14: the hash, never the key). */
export interface KeyInsertRow {
  id: string;
  account_id: string;
  hash: string;
  prefix: string;
  label: string | null;
  kind: ApiKey['kind'];
  package_until: number | null;
  status: 'active';
  created_at: number;
  revoked_at: null;
  test: boolean;
  expires_at: number | null;
}

const KINDS: readonly string[] = ['payg', 'unlimited'];

/** Check a NewKey (a hash and a kind) and build its row: active, a new id. The account is the caller's check. */
export function newKeyRow(input: NewKey, now: number): KeyInsertRow {
  if (typeof input.hash !== 'string' || input.hash === '' || !KINDS.includes(input.kind)) {
    throw new StoreConflict('invalid_input', 'a key needs a hash and a kind (payg or unlimited)');
  }
  return {
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
    test: input.test === true,
    expires_at: input.expiresAt ?? null,
  };
}

/** A new whitelist row, as both stores insert it (D18: the block as family and first/last address). */
export interface WhitelistInsertRow {
  id: string;
  account_id: string;
  cidr: string;
  family: 4 | 6;
  range_start: string;
  range_end: string;
  created_at: number;
}

/** The row of a new whitelist entry of this account for an already parsed block. */
export function newWhitelistRow(accountId: string, range: AddressRange, now: number): WhitelistInsertRow {
  return {
    id: newId('wl'),
    account_id: accountId,
    cidr: range.cidr,
    family: range.family,
    range_start: range.start,
    range_end: range.end,
    created_at: now,
  };
}

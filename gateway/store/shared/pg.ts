/**
 * PostgreSQL side of the shared store: the knex pool and the row mappers. PostgreSQL returns bigint columns as
 * strings; they are converted with Number (safe below 2^53, D16).
 */
import knexFactory, { type Knex } from 'knex';
import type { Account, ApiKey, LedgerEntry, UsageRow, WhitelistEntry } from '../types';

/** Open a knex pool on a PostgreSQL URL; connection attempts give up after 2 s so faults surface quickly. */
export function openPostgres(url: string): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: url, connectionTimeoutMillis: 2_000 },
    pool: { min: 0, max: 10 },
    acquireConnectionTimeout: 3_000,
    // Connection faults surface as StoreUnavailableError where they matter; knex's own console lines are noise.
    log: {
      warn: () => undefined,
      error: () => undefined,
      deprecate: () => undefined,
      debug: () => undefined,
    },
  });
}

type Row = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** Map an accounts row. */
export function toAccount(r: Row): Account {
  return {
    id: String(r.id),
    email: String(r.email),
    name: strOrNull(r.name),
    passwordHash: strOrNull(r.password_hash),
    status: r.status as Account['status'],
    balance: num(r.balance),
    unlimitedUntil: numOrNull(r.unlimited_until),
    createdAt: num(r.created_at),
  };
}

/** Map an api_keys row (or the `k_`-prefixed columns of a joined row when `p` is 'k_'). */
export function toKey(r: Row, p = ''): ApiKey {
  return {
    id: String(r[`${p}id`]),
    accountId: String(r[`${p}account_id`]),
    prefix: String(r[`${p}prefix`]),
    label: strOrNull(r[`${p}label`]),
    kind: r[`${p}kind`] as ApiKey['kind'],
    packageUntil: numOrNull(r[`${p}package_until`]),
    status: r[`${p}status`] as ApiKey['status'],
    createdAt: num(r[`${p}created_at`]),
    revokedAt: numOrNull(r[`${p}revoked_at`]),
  };
}

/** Map a whitelist row. */
export function toWhitelist(r: Row): WhitelistEntry {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    cidr: String(r.cidr),
    createdAt: num(r.created_at),
  };
}

/** Map a ledger row. */
export function toLedger(r: Row): LedgerEntry {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    amount: num(r.amount),
    kind: r.kind as LedgerEntry['kind'],
    keyId: strOrNull(r.key_id),
    ref: strOrNull(r.ref),
    createdAt: num(r.created_at),
  };
}

/** Map a usage_daily row. */
export function toUsage(r: Row): UsageRow {
  return {
    day: String(r.day),
    subject: String(r.subject),
    free: num(r.free),
    billed: num(r.billed),
    refused: num(r.refused),
  };
}

/** Whether a PostgreSQL error is a unique violation (optionally of a named constraint). */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

/**
 * The store's own bookkeeping table (besides the shared migrations): ids of stream events already written to the
 * ledger and usage history, so a drain that crashes before acknowledging cannot apply an event twice.
 */
export async function ensureDrainTable(knex: Knex): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw("SELECT pg_advisory_xact_lock(hashtext('geogate:shared_drained'))");
    await trx.raw(
      `CREATE TABLE IF NOT EXISTS shared_drained (
         event_id varchar(220) PRIMARY KEY,
         drained_at bigint NOT NULL
       )`,
    );
    await trx.raw('CREATE INDEX IF NOT EXISTS shared_drained_at ON shared_drained (drained_at)');
  });
}

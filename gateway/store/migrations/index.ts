/**
 * The shared migrations: knex migrations as TS modules, loaded from an explicit ordered list (a custom
 * migrationSource) so they run the same from TS under jest and from compiled JS, on SQLite and PostgreSQL.
 */
import type { Knex } from 'knex';
import * as initial from './001_initial';
import * as singleUse from './002_single_use';
import * as throttle from './003_throttle';
import * as keyRestrictions from './004_key_restrictions';
import * as receipts from './005_receipts';
import * as notifications from './006_notifications';
import * as accountLifecycle from './007_account_lifecycle';
import * as refunds from './008_refunds';
import * as hourlyLedger from './009_hourly_ledger';
import * as keySecrets from './010_key_secrets';
import * as planPeriods from './013_plan_periods';
import * as consoleTables from './015_console';
import * as autoTopUp from './011_auto_topup';
import * as invoices from './012_invoices';
import * as keyBurst from './016_key_burst';
import * as twoFactor from './014_two_factor';
import * as auditLog from './017_audit_log';

/** The knex bookkeeping table of the migrations (its lock table is `${MIGRATIONS_TABLE}_lock`). */
export const MIGRATIONS_TABLE = 'geogate_migrations';
export const MIGRATIONS_LOCK_TABLE = `${MIGRATIONS_TABLE}_lock`;

interface Migration {
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every migration, in order. Append only. */
export const MIGRATIONS: readonly Migration[] = [
  initial,
  singleUse,
  throttle,
  keyRestrictions,
  receipts,
  notifications,
  accountLifecycle,
  refunds,
  hourlyLedger,
  keySecrets,
  planPeriods,
  consoleTables,
  autoTopUp,
  invoices,
  keyBurst,
  twoFactor,
  auditLog,
];

/** A knex migration source over the explicit list. */
export const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};

/** Bring the schema up to date (idempotent). `schemaName` is for PostgreSQL schemas. */
export async function runMigrations(knex: Knex, opts: { schemaName?: string } = {}): Promise<void> {
  await knex.migrate.latest({
    migrationSource,
    tableName: MIGRATIONS_TABLE,
    ...(opts.schemaName !== undefined ? { schemaName: opts.schemaName } : {}),
  });
}

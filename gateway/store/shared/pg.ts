/** PostgreSQL side of the shared store: the knex pool and its own bookkeeping (row mappers: ../rows.ts). */
import knexFactory, { type Knex } from 'knex';

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

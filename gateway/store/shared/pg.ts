/** PostgreSQL side of the shared store: the knex pool and its own bookkeeping (row mappers: ../rows.ts). */
import knexFactory, { type Knex } from 'knex';

/**
 * Every PostgreSQL call has a bounded time (issue 13), so a stalled server is answered 503 (or served uncounted)
 * within 5 s: a connection attempt gives up after 1.5 s ("timeout expired"), waiting for a pooled connection after
 * 2 s, a statement is cancelled by the server after 2 s (57014) and by the client after 2.5 s when the server does
 * not answer at all ("Query read timeout"). errors.ts classifies each as unavailable.
 */
export const PG_TIMEOUTS = {
  connectMs: 1_500,
  acquireMs: 2_000,
  statementMs: 2_000,
  queryMs: 2_500,
} as const;

/** Open a knex pool on a PostgreSQL URL with the bounded times above. */
export function openPostgres(url: string): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      connectionTimeoutMillis: PG_TIMEOUTS.connectMs,
      statement_timeout: PG_TIMEOUTS.statementMs,
      query_timeout: PG_TIMEOUTS.queryMs,
    },
    pool: { min: 0, max: 10 },
    acquireConnectionTimeout: PG_TIMEOUTS.acquireMs,
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

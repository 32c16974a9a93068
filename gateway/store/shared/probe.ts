/**
 * The opening check of the shared store: both Redis and PostgreSQL must answer within a bound, else opening fails
 * with a StoreUnavailableError that names the unreachable side(s) by host and port (never the URL's credentials).
 */
import type { Knex } from 'knex';
import { StoreUnavailableError } from './errors';
import { waitReady, type RedisClient } from './redis-client';

/** How long opening waits for each database before giving up. */
export const OPEN_WAIT_MS = 3_000;

/** `host:port` (or the cluster seeds) of a Redis or PostgreSQL URL, without user, password, path or query. */
export function endpointOf(url: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/?#]*)/i.exec(url);
  return m?.[1] ? m[1] : '(unparsable URL)';
}

/** A driver's message with any credential of the URL removed (pg and ioredis may quote the URL). */
export function scrub(message: string, url: string): string {
  let out = message.split(url).join(endpointOf(url));
  try {
    const u = new URL(url);
    for (const secret of [u.password, decodeURIComponent(u.password)]) {
      if (secret) out = out.split(secret).join('***');
    }
  } catch {
    // not a WHATWG URL (e.g. cluster seeds): the whole-URL replacement above is all we can do
  }
  return out;
}

const messageOf = (err: unknown): string =>
  err instanceof Error ? err.message : typeof err === 'string' ? err : 'no answer';

/** Resolve with null when PostgreSQL answers `SELECT 1` within `ms`, else with the reason. */
async function pgProblem(knex: Knex, ms: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${ms / 1000} s`), ms);
  });
  const answer = knex.raw('SELECT 1').then(
    () => null,
    (err: unknown) => messageOf(err),
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolve with null when Redis is ready within `ms`, else with the reason (its last connection error). */
async function redisProblem(client: RedisClient, ms: number): Promise<string | null> {
  const { ready, lastError } = await waitReady(client, ms);
  if (ready) return null;
  return lastError
    ? `${messageOf(lastError)} (not ready within ${ms / 1000} s)`
    : `not ready within ${ms / 1000} s`;
}

/** Check both databases in parallel; throw one StoreUnavailableError naming every unreachable side. */
export async function requireReachable(
  client: RedisClient,
  knex: Knex,
  urls: { redis: string; postgres: string },
  ms = OPEN_WAIT_MS,
): Promise<void> {
  const [redis, postgres] = await Promise.all([redisProblem(client, ms), pgProblem(knex, ms)]);
  const parts: string[] = [];
  if (redis !== null)
    parts.push(`Redis at ${endpointOf(urls.redis)} is unreachable: ${scrub(redis, urls.redis)}`);
  if (postgres !== null)
    parts.push(
      `PostgreSQL at ${endpointOf(urls.postgres)} is unreachable: ${scrub(postgres, urls.postgres)}`,
    );
  if (parts.length === 0) return;
  throw new StoreUnavailableError(
    redis !== null ? 'redis' : 'postgres',
    `cannot open the shared store: ${parts.join('; ')}`,
  );
}

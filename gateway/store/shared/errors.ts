/**
 * Faults of the shared store. A refusal is a value; an unreachable Redis or PostgreSQL is a thrown
 * StoreUnavailableError, which the pipeline maps to 503 store_unavailable (onStoreFailure: closed) or serves
 * anonymous traffic uncounted (open).
 */
import { ReplyError } from 'ioredis';
import { StoreUnavailableError } from '../faults';

export { StoreUnavailableError } from '../faults';

/**
 * Redis replies that mean "the server cannot serve now", not "the command is wrong": cluster down or resharding,
 * loading, a script running too long, a read-only replica, out of memory under `noeviction`, too few replicas. A
 * script's call that hits one is wrapped ("ERR Error running script … -OOM …"), so the code may follow a separator.
 */
const TRANSIENT_REPLY =
  /(^|[\s:-])(CLUSTERDOWN|LOADING|TRYAGAIN|MASTERDOWN|BUSY|READONLY|OOM|NOREPLICAS|MISCONF)\b/;

/** The message of an error-like value (duck-typed: errors from Node's core may come from another realm). */
function messageOf(err: unknown): string {
  const m = (err as { message?: unknown } | null)?.message;
  return typeof m === 'string' ? m : String(err);
}

/** A Redis failure as the store reports it: connection-level problems become StoreUnavailableError. */
export function redisFault(err: unknown): Error {
  if (err instanceof StoreUnavailableError) return err;
  if (err instanceof ReplyError && !TRANSIENT_REPLY.test(messageOf(err))) return err as Error;
  return new StoreUnavailableError('redis', messageOf(err), { cause: err });
}

/**
 * PostgreSQL faults by code: socket errors, connection exceptions (08), operator intervention (57P), a statement
 * cancelled by statement_timeout (57014), insufficient resources (53: too many connections, disk full, out of memory).
 */
const PG_UNAVAILABLE_CODE =
  /^(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|57P|57014|08|53)/;

/**
 * PostgreSQL faults by message (node-postgres and knex set no code on these): pool acquire timeout, connect timeout
 * ("timeout expired"), query_timeout ("Query read timeout"), a connection ended under a query.
 */
const PG_UNAVAILABLE_MESSAGE =
  /Timeout acquiring a connection|Connection terminated|connect ECONNREFUSED|timeout exceeded|timeout expired|Query read timeout|connection error and is not queryable|Connection ended/i;

/** Whether a PostgreSQL error is a connection problem (not a constraint or SQL error). */
export function isPgConnectionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && PG_UNAVAILABLE_CODE.test(code)) return true;
  return PG_UNAVAILABLE_MESSAGE.test(messageOf(err));
}

/** A PostgreSQL failure as the store reports it. */
export function pgFault(err: unknown): unknown {
  if (isPgConnectionError(err)) return new StoreUnavailableError('postgres', messageOf(err), { cause: err });
  return err;
}

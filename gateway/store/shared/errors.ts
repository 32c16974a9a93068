/**
 * Faults of the shared store. A refusal is a value; an unreachable Redis or PostgreSQL is a thrown
 * StoreUnavailableError, which the pipeline maps to 503 store_unavailable (onStoreFailure: closed) or serves
 * anonymous traffic uncounted (open).
 */
import { ReplyError } from 'ioredis';

/** Redis or PostgreSQL could not be reached (or did not answer in time). */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable' as const;
  constructor(
    readonly backend: 'redis' | 'postgres',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${backend} unavailable: ${message}`, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Redis replies that mean "the server cannot serve now", not "the command is wrong". */
const TRANSIENT_REPLY = /^(CLUSTERDOWN|LOADING|TRYAGAIN|MASTERDOWN|BUSY|READONLY)/;

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

/** Whether a PostgreSQL error is a connection problem (not a constraint or SQL error). */
export function isPgConnectionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^(ECONN|ETIMEDOUT|EPIPE|ENOTFOUND|EHOSTUNREACH|57P|08)/.test(code))
    return true;
  return /Timeout acquiring a connection|Connection terminated|connect ECONNREFUSED|timeout exceeded/i.test(
    messageOf(err),
  );
}

/** A PostgreSQL failure as the store reports it. */
export function pgFault(err: unknown): unknown {
  if (isPgConnectionError(err)) return new StoreUnavailableError('postgres', messageOf(err), { cause: err });
  return err;
}

/**
 * Windowed counters (dashboard sign-in throttling), the same rule in both stores: the first hit of a name, or the
 * first after its window ended, starts a window of `windowMs` at `now` with count 1; later hits in the window add 1.
 * Times are the callers' (the injected clock), never the database's.
 */
import { StoreConflict } from './types';

/** Longest accepted name (the column is varchar(200)). */
export const MAX_WINDOW_NAME = 200;

/** Longest accepted window: one day. */
export const MAX_WINDOW_MS = 24 * 60 * 60_000;

/** A counter after a hit: hits in the current window (this one included) and when the window ends (epoch ms). */
export interface WindowCount {
  count: number;
  resetAt: number;
}

/** Throw invalid_input unless the name is 1..200 characters and the times are whole, the window 1 ms..1 day. */
export function requireWindow(name: string, windowMs: number, now: number): void {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_WINDOW_NAME)
    throw new StoreConflict('invalid_input', `name must be 1..${MAX_WINDOW_NAME} characters`);
  if (!Number.isSafeInteger(windowMs) || windowMs < 1 || windowMs > MAX_WINDOW_MS)
    throw new StoreConflict('invalid_input', `windowMs must be a whole number from 1 to ${MAX_WINDOW_MS}`);
  if (!Number.isSafeInteger(now))
    throw new StoreConflict('invalid_input', 'now must be whole epoch milliseconds');
}

/**
 * One upsert: insert (name, 1, now + window), or restart an ended window, or add one; returns the row. Parameters:
 * name, resetAt (now + windowMs), now, now. Atomic on SQLite (one statement) and PostgreSQL (ON CONFLICT).
 */
export const HIT_SQL =
  'INSERT INTO throttle (name, count, reset_at) VALUES (?, 1, ?) ON CONFLICT (name) DO UPDATE SET ' +
  'count = CASE WHEN throttle.reset_at <= ? THEN 1 ELSE throttle.count + 1 END, ' +
  'reset_at = CASE WHEN throttle.reset_at <= ? THEN excluded.reset_at ELSE throttle.reset_at END ' +
  'RETURNING count, reset_at';

/** Delete ended windows; parameter: now. */
export const PRUNE_WINDOWS_SQL = 'DELETE FROM throttle WHERE reset_at <= ?';

/** The marks port: single-use marks and windowed counters (dashboard sign-in links, sessions, throttling). */

/** Marks and windows shared by every gateway instance on the store. */
export interface MarkStore {
  /*
   * --- single-use marks (dashboard: one-time sign-in links, ended sessions) ---
   * Durable and shared by every gateway instance on the store. A mark lives until its `expiresAt` (epoch ms):
   * once `now >= expiresAt` it counts as not consumed and may be pruned, so consuming the id again returns true
   * (callers use an expiry no earlier than that of the thing the id names, so a reuse after it is harmless).
   */
  /**
   * Mark `id` consumed until `expiresAt`. True the first time (or after the earlier mark expired), false on every
   * later call while `now < expiresAt`; atomic: of N concurrent calls with the same id exactly one gets true.
   * `id` is at most 200 characters ('invalid_input').
   */
  consumeOnce(id: string, expiresAt: number, now: number): Promise<boolean>;
  /** Whether `id` holds an unexpired mark at `now` (a mark expired at `now` → false). */
  isConsumed(id: string, now: number): Promise<boolean>;

  /**
   * --- windowed counters (dashboard sign-in throttling), shared by every instance on the store ---
   * Count one hit of `name`: the first hit, or the first at or after its window's end, starts a window of
   * `windowMs` at `now` (count 1); later hits add one. Returns the count including this hit and the window's end.
   * Atomic: N concurrent hits of a fresh name return counts 1..N. `name` ≤ 200 characters ('invalid_input').
   */
  hitWindow(name: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
}

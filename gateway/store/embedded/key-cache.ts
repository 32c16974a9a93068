/**
 * Key records by hash, kept in memory for at most TTL_MS (issue 12: the join behind every keyed request). Only the
 * key is cached: its account is read by primary key on every request, so a suspension, a credit or a balance is
 * never served stale. A revocation made through this store clears the cache at once; one made by another process
 * on the same file (a second worker, the CLI) is seen within TTL_MS (D19: under 1 s). Unknown keys are not cached,
 * so a key created elsewhere works at once. Bounded: when full, the oldest half is dropped.
 */
import type { ApiKey } from '../types';

/** How long a key record may be served from memory. */
export const TTL_MS = 500;
const MAX_ENTRIES = 10_000;

/** The cache; `now` is a monotonic clock (performance.now), independent of the gateway's (possibly fake) clock. */
export class KeyCache {
  private readonly entries = new Map<string, { key: ApiKey; at: number }>();
  /** Key lookups answered from memory, and those that read the database. */
  readonly stats = { hits: 0, misses: 0 };

  /** The key record of `hash` when fresh. */
  get(hash: string, now: number): ApiKey | undefined {
    const e = this.entries.get(hash);
    if (e !== undefined && now - e.at < TTL_MS) {
      this.stats.hits += 1;
      return e.key;
    }
    this.stats.misses += 1;
    return undefined;
  }

  /** Remember a key record read from the database at `now`. */
  set(hash: string, key: ApiKey, now: number): void {
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(hash)) {
      let drop = MAX_ENTRIES / 2;
      for (const k of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(k);
      }
    }
    this.entries.delete(hash); // re-inserted last: Map order is insertion order, oldest first
    this.entries.set(hash, { key, at: now });
  }

  /** Forget everything (a key changed through this store). */
  clear(): void {
    this.entries.clear();
  }
}

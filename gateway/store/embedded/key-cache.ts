/**
 * Key identities (the key and its account) by hash, kept in memory for at most TTL_MS (issue 12: the join behind
 * every keyed request, and then the account read it still made, 6.5 % of a billed request's CPU). Like the shared
 * store's identity cache: a change of a key or an account made through this store clears the cache at once; one
 * made by another process on the same file (a second worker) is seen within TTL_MS (D19: under 1 s). The cached
 * balance is never used to decide: the admission debits the stored balance, and the account endpoints read it fresh.
 * Unknown keys are not cached, so a key created elsewhere works at once. Bounded: when full, the oldest half is
 * dropped.
 */
import type { KeyIdentity } from '../types';

/** How long a key record may be served from memory. */
export const TTL_MS = 500;
const MAX_ENTRIES = 10_000;

/** The cache; `now` is a monotonic clock (performance.now), independent of the gateway's (possibly fake) clock. */
export class KeyCache {
  private readonly entries = new Map<string, { identity: KeyIdentity; at: number }>();
  /** Key lookups answered from memory, and those that read the database. */
  readonly stats = { hits: 0, misses: 0 };

  /** The identity of `hash` when fresh. */
  get(hash: string, now: number): KeyIdentity | undefined {
    const e = this.entries.get(hash);
    if (e !== undefined && now - e.at < TTL_MS) {
      this.stats.hits += 1;
      return e.identity;
    }
    this.stats.misses += 1;
    return undefined;
  }

  /** Remember an identity read from the database at `now`. */
  set(hash: string, identity: KeyIdentity, now: number): void {
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(hash)) {
      let drop = MAX_ENTRIES / 2;
      for (const k of this.entries.keys()) {
        if (drop-- <= 0) break;
        this.entries.delete(k);
      }
    }
    this.entries.delete(hash); // re-inserted last: Map order is insertion order, oldest first
    this.entries.set(hash, { identity, at: now });
  }

  /** Forget everything (a key or an account changed through this store). */
  clear(): void {
    this.entries.clear();
  }
}

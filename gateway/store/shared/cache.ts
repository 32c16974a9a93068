/**
 * The identification cache of one gateway instance (D18, D19): key identities by hash, accounts by id, and the whole
 * whitelist, each for at most `ttlMs` (the safety net when an invalidation message is missed). Changes made on any
 * instance are published on Redis pub/sub and drop the entries everywhere at once. When PostgreSQL is unreachable,
 * an expired entry is served (stale-if-error) so known keys keep working; an invalidated entry is never served.
 */
import type { Clock } from '../../core/clock';
import type { Account, KeyIdentity } from '../types';
import { StoreUnavailableError } from './errors';

interface Entry<T> {
  v: T;
  at: number;
}

/** One whitelist block (fixed-width hex bounds, see ranges.ts) and its account. */
export interface WhitelistBlock {
  family: number;
  start: string;
  end: string;
  accountId: string;
}

const MAX_ENTRIES = 100_000;

/**
 * What an invalidation message names. A key change names the key's id too (`id`): every secret of the key is dropped,
 * the previous one of a rotation included (D39).
 */
export type Invalidation =
  { k: 'key'; hash: string; id?: string } | { k: 'account'; id: string } | { k: 'whitelist' } | { k: 'all' };

/** The cache. */
export class IdentityCache {
  private keys = new Map<string, Entry<KeyIdentity | null>>();
  private accounts = new Map<string, Entry<Account | null>>();
  private whitelist: Entry<WhitelistBlock[]> | null = null;
  /** Bumped by every invalidation: a load that started before it does not store its (maybe stale) result. */
  private generation = 0;
  /** Key lookups answered from the cache, and those that went to PostgreSQL (for the metrics). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(
    private readonly ttlMs: number,
    private readonly clock: Clock,
  ) {}

  /** The identity of a key hash, loaded with `load` when absent or expired. */
  key(hash: string, load: () => Promise<KeyIdentity | null>): Promise<KeyIdentity | null> {
    return this.cached(this.keys, hash, load, this.stats);
  }

  /** The account of a cached key identity (before an invalidation drops it), or null. */
  accountOfKey(hash: string): string | null {
    return this.keys.get(hash)?.v?.account.id ?? null;
  }

  /** An account by id. */
  account(id: string, load: () => Promise<Account | null>): Promise<Account | null> {
    return this.cached(this.accounts, id, load);
  }

  /** The whitelist blocks. */
  async blocks(load: () => Promise<WhitelistBlock[]>): Promise<WhitelistBlock[]> {
    const e = this.whitelist;
    const t = this.clock.now();
    if (e && t - e.at < this.ttlMs) return e.v;
    const gen = this.generation;
    try {
      const v = await load();
      if (gen === this.generation) this.whitelist = { v, at: t };
      return v;
    } catch (err) {
      if (e && err instanceof StoreUnavailableError) return e.v;
      throw err;
    }
  }

  /** Drop what a change made stale. */
  invalidate(msg: Invalidation): void {
    this.generation += 1;
    if (msg.k === 'key') {
      this.keys.delete(msg.hash);
      if (msg.id !== undefined)
        for (const [hash, e] of this.keys) if (e.v?.key.id === msg.id) this.keys.delete(hash);
    }
    if (msg.k === 'account') {
      this.accounts.delete(msg.id);
      for (const [hash, e] of this.keys) if (e.v?.account.id === msg.id) this.keys.delete(hash);
    }
    if (msg.k === 'whitelist') this.whitelist = null;
    if (msg.k === 'all') {
      this.keys.clear();
      this.accounts.clear();
      this.whitelist = null;
    }
  }

  private async cached<T>(
    map: Map<string, Entry<T>>,
    k: string,
    load: () => Promise<T>,
    stats?: { hits: number; misses: number },
  ): Promise<T> {
    const e = map.get(k);
    const t = this.clock.now();
    const hit = e !== undefined && t - e.at < this.ttlMs;
    if (stats) stats[hit ? 'hits' : 'misses'] += 1;
    if (hit) return e.v;
    const gen = this.generation;
    try {
      const v = await load();
      if (gen === this.generation) {
        if (map.size >= MAX_ENTRIES) map.clear();
        map.set(k, { v, at: t });
      }
      return v;
    } catch (err) {
      if (e && err instanceof StoreUnavailableError) return e.v;
      throw err;
    }
  }
}

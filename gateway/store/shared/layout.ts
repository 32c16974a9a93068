/**
 * Redis key layout of the shared store. Every key carries a hash tag `{n}` (n = shard 0..SHARDS-1 of its entity),
 * so on a Redis Cluster all keys of one entity (a key, a network, an account) sit in one hash slot and one script can
 * touch them together. Each shard has one event stream that the drain copies into PostgreSQL.
 */

/** Number of shards: tags `{0}`..`{15}`, spread over the cluster's masters. */
export const SHARDS = 16;

/** The entity's shard: FNV-1a (32 bit) of its name, modulo SHARDS. */
export function shardOf(entity: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < entity.length; i++) {
    h ^= entity.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % SHARDS;
}

/** Key names under one prefix. */
export class Layout {
  constructor(readonly prefix: string) {
    if (/[{}\s]/.test(prefix))
      throw new Error(`store.keyPrefix must not contain braces or spaces: "${prefix}"`);
  }

  private key(shard: number, rest: string): string {
    return `${this.prefix}{${shard}}:${rest}`;
  }

  /** A daily free-allowance counter (D5), e.g. counter("network:203.0.113.7/32", "2026-11-22"). */
  counter(id: string, day: string): string {
    return this.key(shardOf(id), `c:${id}:${day}`);
  }

  /** The slot set of a scope ("key:…" / "account:…"): hash member → "firstSeen:lastSeen". */
  slots(scope: string): string {
    return this.key(shardOf(scope), `s:${scope}`);
  }

  /** An account's wallet (hash b = balance, v = initialised at). */
  wallet(accountId: string): string {
    return this.key(shardOf(`account:${accountId}`), `w:${accountId}`);
  }

  /** The admission mark of one step of a plan (holds its undo record until released). */
  mark(shard: number, planId: string, step: number): string {
    return this.key(shard, `adm:${planId}:${step}`);
  }

  /**
   * A shard's index of admissions not settled yet: member "planId:step" → admission time (plan.now). Kept
   * (answered) and released admissions leave it; the sweeper releases what stays past the reservation timeout.
   */
  inflight(shard: number): string {
    return this.key(shard, 'inflight');
  }

  /**
   * A shard's "counters are in place" sentinel (no TTL): missing after Redis restarted empty, until the rebuild
   * (rebuild.ts) has restored the shard's daily counters from PostgreSQL; admissions in the shard wait for it.
   */
  ready(shard: number): string {
    return this.key(shard, 'ready');
  }

  /** Held by the instance rebuilding a shard's counters (a short lock). */
  rebuildLock(shard: number): string {
    return this.key(shard, 'rebuilding');
  }

  /** The last flush (its number) a lease holder applied in this shard (lease/lua-lease.ts FLUSH_LUA). */
  leaseFlushMark(shard: number, holderId: string): string {
    return this.key(shard, `lf:${holderId}`);
  }

  /**
   * The lease state's epoch in a shard (no TTL): a token the first lease flush after the key went missing writes. A
   * holder that flushed under another token knows Redis lost its data since (an empty restart): its leases and the
   * charge events it flushed there but that were not drained yet are gone (lease/holder.ts recovers them).
   */
  leaseEpoch(shard: number): string {
    return this.key(shard, 'lease-epoch');
  }

  /**
   * A shard's index of accounts with credit leases (D33): member account id → the earliest expiry of its leases, so
   * a background reclaim finds the expired ones of accounts no script touches again (lease/holder.ts).
   */
  leaseIndex(shard: number): string {
    return this.key(shard, 'leases');
  }

  /** A top-up's idempotency mark. */
  topupMark(accountId: string, ref: string): string {
    return this.key(shardOf(`account:${accountId}`), `top:${accountId}:${ref}`);
  }

  /** The event stream of a shard (charges, top-ups, usage) awaiting the drain. */
  stream(shard: number): string {
    return this.key(shard, 'events');
  }

  /** A short lock so that instances do not drain the same shard at the same time (an optimisation only). */
  drainLock(shard: number): string {
    return this.key(shard, 'drainlock');
  }

  /** The pub/sub channel of cache invalidations (D18, D19). */
  get channel(): string {
    return `${this.prefix}invalidate`;
  }

  /** The shard of an account's wallet and stream. */
  accountShard(accountId: string): number {
    return shardOf(`account:${accountId}`);
  }
}

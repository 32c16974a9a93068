/**
 * A holder's calls to the owner (D33): a credit grant (one script on the account's wallet), the reads that fill the
 * holder's view (a slot member's entry, a counter's value) and the flush (one script per flush on one Redis server,
 * one per shard on a cluster, each applied once per flush number).
 */
import { redisFault } from '../errors';
import { SHARDS, shardOf, type Layout } from '../layout';
import { scriptsOf, type RedisClient } from '../redis-client';

/** How long a holder's flush mark stays (a flush is re-sent within seconds; the mark only has to outlive that). */
const FLUSH_MARK_TTL_S = 3_600;

/** A grant's answer. */
export type GrantReply =
  { kind: 'granted'; granted: number; leased: number; holders: number } | { kind: 'needs-wallet' };

/** One wallet's part of a flush. */
export interface WalletFlush {
  accountId: string;
  /** Kept units to charge. */
  post: number;
  /** Unspent units to return. */
  void: number;
  /** Units of charged admissions released since (D11), given back to the balance. */
  refund: number;
  /** Units charged while in flight and not settled yet: refunded by the owner if the lease expires (D34). */
  pif: number;
  /** Where `pif` was posted: lines "key\tday\thour\tusage\trequests\tunits" (a reclaim refunds them there). */
  pifDetail: string;
  /** ≥ 0: the lease is at most this (resynchronising after a lost reply); −1: no bound. */
  set: number;
}

/** An aggregated charge event (what the answers of one key, account and day in one flush charged). */
export interface ChargeEvent {
  id: string;
  accountId: string;
  keyId: string;
  day: string;
  usage: string;
  charged: number;
  requests: number;
  /** A time in the hour row it goes to (the admissions' time, plan.now); absent: the flush's. */
  at?: number;
}

/** A slot member whose lastSeen the flush moves. */
export interface SeenUpdate {
  scope: string;
  member: string;
  lastSeen: number;
}

/** A flush's content. */
export interface FlushBatch {
  seq: number;
  now: number;
  wallets: WalletFlush[];
  events: ChargeEvent[];
  seen: SeenUpdate[];
}

/** A wallet's state after a flush: the holder's lease units at the owner and the units written off. */
export interface FlushResult {
  leased: number;
  writtenOff: number;
}

/** A flush's answer: what was applied, and what needs the holder first (nothing of those groups was applied). */
export interface FlushReply {
  wallets: FlushResult[];
  seen: (boolean | null)[];
  /** The lease epoch of each group that answered (group: the shard on a cluster, 0 on one Redis server). */
  epochs: Map<number, string>;
  /** Groups whose epoch is not the one the holder knew: Redis lost its data since (an empty restart). */
  lost: number[];
  /** Accounts whose wallet is missing (to initialise from the ledger before the flush is sent again). */
  needWallets: string[];
}

/** The owner's side, seen from one holder. */
export class Owner {
  /** The holder's field in each wallet hash. */
  readonly field: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly layout: Layout,
    private readonly cluster: boolean,
    readonly holderId: string,
    private readonly ttlMs: number,
  ) {
    this.field = `h:${holderId}`;
  }

  /**
   * Accounts of the shards' lease indexes whose earliest lease expiry is past `now` (at most `max` per shard): one
   * script call on one Redis server, one command per shard on a cluster.
   */
  async dueAccounts(now: number, max = 100): Promise<string[]> {
    const out: string[] = [];
    const args = (shard: number) => [this.layout.leaseIndex(shard), '-inf', now, 'LIMIT', 0, max] as const;
    if (!this.cluster) {
      // One script over every shard's index: one call a reclaim tick, busy or idle (a pipeline is one call per shard).
      const keys = Array.from({ length: SHARDS }, (_, shard) => this.layout.leaseIndex(shard));
      const ids = await this.call(() => scriptsOf(this.redis).ggDue(keys.length, ...keys, now, max));
      return ids as string[];
    }
    const all = await Promise.all(
      Array.from({ length: SHARDS }, (_, shard) => this.call(() => this.redis.zrangebyscore(...args(shard)))),
    );
    for (const ids of all) out.push(...ids);
    return out;
  }

  /** Reclaim the expired leases of `accountId` (RECLAIM_LUA); the units still leased by live holders. */
  async reclaim(accountId: string, now: number): Promise<number> {
    const shard = this.layout.accountShard(accountId);
    const r = await this.call(() =>
      scriptsOf(this.redis).ggReclaim(
        3,
        this.layout.wallet(accountId),
        this.layout.stream(shard),
        this.layout.leaseIndex(shard),
        now,
        accountId,
      ),
    );
    return Number(r);
  }

  /** Ask for `ask` requests' worth of credit at `price` each (GRANT_LUA). */
  async grant(accountId: string, ask: number, price: number, now: number): Promise<GrantReply> {
    const r = (await this.call(() =>
      scriptsOf(this.redis).ggGrant(
        3,
        this.layout.wallet(accountId),
        this.layout.stream(this.layout.accountShard(accountId)),
        this.layout.leaseIndex(this.layout.accountShard(accountId)),
        this.field,
        now,
        this.ttlMs,
        ask,
        price,
        accountId,
      ),
    )) as number[];
    if (Number(r[0]) === 2) return { kind: 'needs-wallet' };
    return { kind: 'granted', granted: Number(r[1]), leased: Number(r[2]), holders: Number(r[3]) };
  }

  /** A slot member's entry "firstSeen:lastSeen", or null. */
  async slotEntry(scope: string, member: string): Promise<string | null> {
    return this.call(() => this.redis.hget(this.layout.slots(scope), member));
  }

  /** A daily counter's value. */
  async counter(id: string, day: string): Promise<number> {
    return Number((await this.call(() => this.redis.get(this.layout.counter(id, day)))) ?? 0);
  }

  /** The flush group of an account's wallet: its shard on a cluster (one script per shard), else 0. */
  groupOf(accountId: string): number {
    return this.cluster ? this.layout.accountShard(accountId) : 0;
  }

  /**
   * Send a flush: each wallet's result in `batch.wallets` order (leased −2: that part was applied before, a re-sent
   * flush, or not applied: its group is in `lost` or one of its wallets in `needWallets`), and whether each slot
   * member of `batch.seen` is still in its set. `epochs`: the lease epoch the holder knows per group; `nep`: the
   * token a group whose epoch is missing gets.
   */
  async flush(batch: FlushBatch, epochs: ReadonlyMap<number, string>, nep: string): Promise<FlushReply> {
    const out: FlushResult[] = batch.wallets.map(() => ({ leased: -2, writtenOff: 0 }));
    const seenOut: (boolean | null)[] = batch.seen.map(() => null);
    const reply: FlushReply = { wallets: out, seen: seenOut, epochs: new Map(), lost: [], needWallets: [] };
    const groups = new Map<number, { w: number[]; ev: ChargeEvent[]; seen: number[] }>();
    const group = (shard: number) => {
      const at = this.cluster ? shard : 0;
      let g = groups.get(at);
      if (g === undefined) groups.set(at, (g = { w: [], ev: [], seen: [] }));
      return g;
    };
    batch.wallets.forEach((w, i) => group(this.layout.accountShard(w.accountId)).w.push(i));
    for (const e of batch.events) group(this.layout.accountShard(e.accountId)).ev.push(e);
    batch.seen.forEach((s, i) => group(shardOf(s.scope)).seen.push(i));
    await Promise.all(
      [...groups.entries()].map(async ([shard, g]) => {
        const r = await this.flushGroup(batch, shard, g.w, g.ev, g.seen, epochs.get(shard) ?? '', nep);
        reply.epochs.set(shard, r.epoch);
        if (r.kind === 'lost') reply.lost.push(shard);
        else if (r.kind === 'needs-wallet') {
          for (const i of r.missing) {
            const wi = g.w[i - 1];
            if (wi !== undefined) reply.needWallets.push((batch.wallets[wi] as WalletFlush).accountId);
          }
        } else if (r.kind === 'applied') {
          g.w.forEach((wi, j) => (out[wi] = r.wallets[j] ?? { leased: -1, writtenOff: 0 }));
          g.seen.forEach((si, j) => (seenOut[si] = r.seen[j] ?? null));
        } // 'dup': applied before (a re-sent flush)
      }),
    );
    return reply;
  }

  private async flushGroup(
    batch: FlushBatch,
    shard: number,
    wallets: number[],
    events: ChargeEvent[],
    seenAt: number[],
    ep: string,
    nep: string,
  ): Promise<
    | { kind: 'applied'; epoch: string; wallets: FlushResult[]; seen: boolean[] }
    | { kind: 'dup' | 'lost'; epoch: string }
    | { kind: 'needs-wallet'; epoch: string; missing: number[] }
  > {
    const seen = seenAt.map((i) => batch.seen[i] as SeenUpdate);
    const keys = [this.layout.leaseFlushMark(shard, this.holderId), this.layout.leaseEpoch(shard)];
    const streams = new Map<number, number>();
    const streamOf = (accountId: string): number => {
      const s = this.layout.accountShard(accountId);
      let k = streams.get(s);
      if (k === undefined) {
        keys.push(this.layout.stream(s));
        streams.set(s, (k = keys.length));
      }
      return k;
    };
    const w = wallets.map((wi) => {
      const x = batch.wallets[wi] as WalletFlush;
      keys.push(this.layout.wallet(x.accountId));
      const k = keys.length;
      const s = streamOf(x.accountId);
      keys.push(this.layout.leaseIndex(this.layout.accountShard(x.accountId)));
      const ix = keys.length;
      return {
        k,
        s,
        x: ix,
        a: x.accountId,
        post: x.post,
        void: x.void,
        refund: x.refund,
        pif: x.pif,
        pd: x.pifDetail,
        set: x.set,
      };
    });
    const ev = events.map((e) => {
      return {
        k: streamOf(e.accountId),
        w: wallets.findIndex((wi) => batch.wallets[wi]?.accountId === e.accountId) + 1,
        id: e.id,
        d: e.day,
        n: e.at ?? batch.now,
        u: e.usage,
        a: e.accountId,
        c: e.charged,
        x: e.requests,
        key: e.keyId,
      };
    });
    const sl = seen.map((s) => {
      keys.push(this.layout.slots(s.scope));
      return { k: keys.length, m: s.member, l: s.lastSeen };
    });
    const spec = JSON.stringify({
      h: this.field,
      p: `p:${this.holderId}`,
      now: batch.now,
      ttl: this.ttlMs,
      seq: batch.seq,
      markTtl: FLUSH_MARK_TTL_S,
      ep,
      nep,
      w,
      ev,
      sl,
    });
    const r = (await this.call(() => scriptsOf(this.redis).ggFlush(keys.length, ...keys, spec))) as unknown[];
    const kind = Number(r[0]);
    if (kind === 0) return { kind: 'dup', epoch: String(r[1]) };
    if (kind === 3) return { kind: 'lost', epoch: String(r[1]) };
    if (kind === 2)
      return { kind: 'needs-wallet', epoch: String(r[1]), missing: (r[2] as number[]).map(Number) };
    return {
      kind: 'applied',
      epoch: String(r[3]),
      wallets: ((r[1] ?? []) as [number, number][]).map(([leased, off]) => ({
        leased: Number(leased),
        writtenOff: Number(off),
      })),
      seen: ((r[2] ?? []) as number[]).map((x) => Number(x) === 1),
    };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw redisFault(err);
    }
  }
}

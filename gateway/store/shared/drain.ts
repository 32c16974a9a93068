/**
 * The ledger drain: copies the shards' event streams (charges, releases, top-ups, packages, usage, refusals) into
 * PostgreSQL, exactly once. A pass reads a batch of every shard's stream and applies them all in ONE PostgreSQL
 * transaction, which first records the events' ids in `shared_drained` (a unique key) and applies only the events
 * not recorded before; the stream entries are deleted only after the commit. A crash between commit and delete
 * re-reads the batch and skips it; several instances draining the same shard serialise on the unique key. Money is
 * never lost or counted twice (D16).
 *
 * One transaction per pass, not per shard (issue 12): at a few hundred events per 250 ms tick the per-shard
 * transactions (up to 16 per pass, each BEGIN, five statements, one UPDATE per account and COMMIT) cost the gateway
 * about 100 µs of CPU per drained event, more than the rest of a request. Every transaction takes its row locks in
 * one global order (event ids by shard then stream order, accounts by id, usage and counter rows sorted), so two
 * instances' passes cannot deadlock.
 */
import type { Knex } from 'knex';
import { redisFault, pgFault } from './errors';
import { SHARDS, type Layout } from './layout';
import { applyEvents, parseEntries } from './drain-apply';
import type { RedisClient } from './redis-client';

export type { StoreEvent } from './drain-apply';

/** Stream entries read per shard and pass (a pass applies up to SHARDS × BATCH events in one transaction). */
const BATCH = 500;
const KEEP_MARKS_MS = 3 * 86_400_000;
const ALL_SHARDS: readonly number[] = Array.from({ length: SHARDS }, (_, i) => i);

/** Drains every shard's stream into PostgreSQL; one pass at a time per instance. */
export class Drain {
  private chain: Promise<unknown> = Promise.resolve();
  private queued = false;
  private lastPrune = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly knex: Knex,
    private readonly layout: Layout,
  ) {}

  /** Drain everything written before this call (waits for a pass in progress, then runs a new one). */
  flush(): Promise<number> {
    return this.queue(false);
  }

  private queue(background: boolean): Promise<number> {
    const run = this.chain.then(() => this.pass(background));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Background pass unless one is already waiting: the entries drained, or the error (returned, not thrown). */
  async tick(): Promise<{ drained: number; error: unknown }> {
    if (this.queued) return { drained: 0, error: null };
    this.queued = true;
    try {
      return { drained: await this.queue(true), error: null };
    } catch (error) {
      return { drained: 0, error };
    } finally {
      this.queued = false;
    }
  }

  /**
   * One pass over every shard: a batch of each in one transaction, then again for the shards that had a full batch.
   * In the background, a shard another instance is draining right now is skipped (a 200 ms lock: fewer duplicate
   * transactions; correctness does not depend on it). A flush before a read drains regardless, so a reader sees
   * every event written before its call. A shard that cannot be read (a Redis Cluster node down) does not hold back
   * the others: they are drained, then the pass fails with its error.
   */
  private async pass(background: boolean): Promise<number> {
    let total = 0;
    let failure: unknown = null;
    let shards = ALL_SHARDS;
    for (let round = 0; shards.length > 0; round++) {
      const batch = await this.drainShards(shards, background && round === 0);
      failure ??= batch.failure;
      total += batch.drained.reduce((a, [, n]) => a + n, 0);
      shards = batch.drained.filter(([, n]) => n >= BATCH).map(([shard]) => shard);
    }
    if (failure !== null) throw failure;
    if (Date.now() - this.lastPrune > 3_600_000) {
      this.lastPrune = Date.now();
      await this.knex('shared_drained')
        .where('drained_at', '<', Date.now() - KEEP_MARKS_MS)
        .delete()
        .catch(() => 0);
    }
    return total;
  }

  /** Take the shard's short drain lock (false when another instance holds it). */
  private async lock(shard: number): Promise<boolean> {
    try {
      return (await this.redis.set(this.layout.drainLock(shard), '1', 'PX', 200, 'NX')) === 'OK';
    } catch (err) {
      throw redisFault(err);
    }
  }

  /**
   * Drain one batch of each of `shards` in one transaction. Returns the entries handled per shard drained (a shard
   * whose lock another instance holds, or whose stream is empty, is not listed) and the first read failure.
   */
  async drainShards(
    shards: readonly number[],
    takeLock = false,
  ): Promise<{ drained: [number, number][]; failure: unknown }> {
    let failure: unknown = null;
    const read = await Promise.allSettled(
      shards.map((shard) => this.redis.xrange(this.layout.stream(shard), '-', '+', 'COUNT', BATCH)),
    );
    let batches: { shard: number; entries: [string, string[]][] }[] = [];
    for (const [i, r] of read.entries()) {
      if (r.status === 'rejected') failure ??= redisFault(r.reason);
      else if (r.value.length > 0)
        batches.push({ shard: shards[i] as number, entries: r.value as [string, string[]][] });
    }
    if (takeLock && batches.length > 0) {
      const locked = await Promise.all(batches.map((b) => this.lock(b.shard)));
      batches = batches.filter((_, i) => locked[i]);
    }
    if (batches.length === 0) return { drained: [], failure };
    // Shard order, then stream order: the global order in which every pass takes the event ids' locks.
    const parsed = batches.flatMap((b) => parseEntries(b.entries));
    try {
      await this.knex.transaction(async (trx) => {
        await applyEvents(trx, parsed, this.layout.prefix);
      });
    } catch (err) {
      throw pgFault(err);
    }
    // Deleted only after the commit; an entry left by a failed XDEL is re-read and skipped (already recorded).
    const deleted = await Promise.allSettled(
      batches.map((b) => this.redis.xdel(this.layout.stream(b.shard), ...b.entries.map((e) => e[0]))),
    );
    const lost = deleted.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (lost) throw redisFault(lost.reason);
    return { drained: batches.map((b) => [b.shard, b.entries.length]), failure };
  }
}

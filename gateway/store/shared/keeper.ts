/**
 * Keeping and sweeping admissions on Redis (issue 13): a kept admission (answered, D11) deletes its marks and its
 * in-flight entries. Keeps are batched for `DEFER_MS`: on one Redis server one script call carries every keep of the
 * batch, on a cluster one call per shard (issue 12: at one connection each request made its own keep call, a second
 * Redis round trip per request). The answer never waits for its keep; a kill -9 before the batch is sent leaves those
 * answered admissions to the sweeper, which releases them (never charges an unanswered one). `settle()` sends what
 * is batched (the store's close). The sweeper releases admissions still in flight past the reservation timeout:
 * their instance died (kill -9) before keeping or releasing. On one Redis server a sweep first reads the union of the
 * shards' in-flight indexes in one command (ZUNION; they hold only what is in flight, so it is short), and reads
 * shard by shard only when something there is past the timeout: an idle instance's sweep is one command, not 16.
 */
import type { Clock } from '../../core/clock';
import { redisFault } from './errors';
import { SHARDS, type Layout } from './layout';
import { scriptsOf, type RedisClient } from './redis-client';
import type { MarkRef } from './step';

/** How many in-flight entries one sweep reads per shard and pass. */
const SWEEP_BATCH = 500;
/** How long keeps wait for others to share their script call. */
export const DEFER_MS = 5;
/** At most this many keeps in one script call (a batch is sent early when a call reaches it). */
const MAX_CALL = 256;

/** One script call's KEYS (mark, in-flight index, in pairs) and ARGV (in-flight members). */
interface Call {
  keys: string[];
  members: string[];
}

interface Batch {
  /** By shard on a cluster; everything under shard 0 on one server. */
  calls: Map<number, Call>;
  done: Promise<void>;
  send(): void;
}

/** The in-flight member of a step: "planId:step". */
export function inflightMember(planId: string, step: number): string {
  return `${planId}:${step}`;
}

/** Batches keeps and runs the sweeper. */
export class Keeper {
  private batch: Batch | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly layout: Layout,
    private readonly clock: Clock,
    /** A Redis Cluster: a script call may only touch one shard's keys. */
    private readonly cluster: boolean,
  ) {}

  /** Keep one admission's steps; resolves when Redis has deleted its marks (with the other keeps of the batch). */
  keep(planId: string, marks: readonly MarkRef[]): Promise<void> {
    const batch = this.batch ?? this.open();
    let full = false;
    for (const [shard, step, unit] of marks) {
      const at = this.cluster ? shard : 0;
      let call = batch.calls.get(at);
      if (call === undefined) {
        call = { keys: [], members: [] };
        batch.calls.set(at, call);
      }
      const id = unit ?? planId;
      call.keys.push(this.layout.mark(shard, id, step), this.layout.inflight(shard));
      call.members.push(inflightMember(id, step));
      full ||= call.members.length >= MAX_CALL;
    }
    if (full) batch.send(); // bounded script calls under any load
    return batch.done;
  }

  /** Send the batched keeps now; resolves when they are done (failures were reported to their callers). */
  async settle(): Promise<void> {
    const batch = this.batch;
    if (batch === null) return;
    batch.send();
    await batch.done.catch(() => undefined);
  }

  private open(): Batch {
    const calls: Batch['calls'] = new Map();
    let send!: () => void;
    const done = new Promise<void>((resolve, reject) => {
      let sent = false;
      send = () => {
        if (sent) return;
        sent = true;
        clearTimeout(timer);
        if (this.batch?.calls === calls) this.batch = null;
        this.flush(calls).then(resolve, reject);
      };
    });
    const timer = setTimeout(send, DEFER_MS);
    done.catch(() => undefined); // a caller that does not wait must not see an unhandled rejection
    this.batch = { calls, done, send };
    return this.batch;
  }

  private async flush(calls: Batch['calls']): Promise<void> {
    const sent = [...calls.values()].map((c) =>
      scriptsOf(this.redis).ggKeep(c.keys.length, ...c.keys, ...c.members),
    );
    try {
      await Promise.all(sent);
    } catch (err) {
      throw redisFault(err);
    }
  }

  /**
   * Release every admission step admitted before `now - timeoutMs` and neither kept nor released (all shards).
   * Resolves to how many steps were released (a step whose mark had expired is only dropped from the index).
   */
  async sweep(timeoutMs: number): Promise<number> {
    const cutoff = this.clock.now() - timeoutMs;
    let released = 0;
    for (const shard of await this.dueShards(cutoff)) released += await this.sweepShard(shard, cutoff);
    return released;
  }

  /**
   * The shards to sweep: none when no admission in flight is from `cutoff` or earlier, else every shard. On a cluster
   * (one command names one slot's keys) and on a Redis without ZUNION (before 6.2): every shard.
   */
  private async dueShards(cutoff: number): Promise<number[]> {
    const all = Array.from({ length: SHARDS }, (_, i) => i);
    if (this.cluster) return all;
    const keys = all.map((shard) => this.layout.inflight(shard));
    let reply: string[];
    try {
      // MIN: a member in two indexes counts by its older admission.
      reply = await this.redis.zunion(keys.length, ...keys, 'AGGREGATE', 'MIN', 'WITHSCORES');
    } catch (err) {
      if (/unknown command/i.test(err instanceof Error ? err.message : String(err))) return all;
      throw redisFault(err);
    }
    for (let i = 1; i < reply.length; i += 2) if (Number(reply[i]) <= cutoff) return all;
    return [];
  }

  private async sweepShard(shard: number, cutoff: number): Promise<number> {
    const index = this.layout.inflight(shard);
    let released = 0;
    try {
      for (;;) {
        const members = await this.redis.zrangebyscore(index, '-inf', cutoff, 'LIMIT', 0, SWEEP_BATCH);
        for (const member of members) {
          const i = member.lastIndexOf(':');
          const mark = this.layout.mark(shard, member.slice(0, i), Number(member.slice(i + 1)));
          const r = await scriptsOf(this.redis).ggRelease(2, mark, index, this.clock.now(), member);
          released += Number(r);
        }
        if (members.length < SWEEP_BATCH) return released;
      }
    } catch (err) {
      throw redisFault(err);
    }
  }
}

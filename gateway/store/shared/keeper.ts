/**
 * Keeping and sweeping admissions on Redis (issue 13): a kept admission (answered, D11) deletes its marks and its
 * in-flight entries; keeps that arrive in one event-loop turn share one script call per shard. The sweeper releases
 * admissions still in flight past the reservation timeout: their instance died (kill -9) before keeping or releasing.
 */
import type { Clock } from '../../core/clock';
import { redisFault } from './errors';
import { SHARDS, type Layout } from './layout';
import { scriptsOf, type RedisClient } from './redis-client';
import type { MarkRef } from './step';

/** How many in-flight entries one sweep reads per shard and pass. */
const SWEEP_BATCH = 500;

interface Batch {
  marks: Map<number, { keys: string[]; members: string[] }>;
  done: Promise<void>;
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
  ) {}

  /** Keep one admission's steps; resolves when Redis has deleted its marks (with the other keeps of this turn). */
  keep(planId: string, marks: readonly MarkRef[]): Promise<void> {
    const batch = this.batch ?? this.open();
    for (const [shard, step] of marks) {
      const e = batch.marks.get(shard) ?? { keys: [], members: [] };
      e.keys.push(this.layout.mark(shard, planId, step));
      e.members.push(inflightMember(planId, step));
      batch.marks.set(shard, e);
    }
    return batch.done;
  }

  private open(): Batch {
    const marks: Batch['marks'] = new Map();
    const done = new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        if (this.batch?.marks === marks) this.batch = null;
        this.flush(marks).then(resolve, reject);
      });
    });
    done.catch(() => undefined); // a caller that does not wait must not see an unhandled rejection
    this.batch = { marks, done };
    return this.batch;
  }

  private async flush(marks: Batch['marks']): Promise<void> {
    const calls = [...marks].map(([shard, e]) =>
      scriptsOf(this.redis).ggKeep(e.keys.length + 1, this.layout.inflight(shard), ...e.keys, ...e.members),
    );
    try {
      await Promise.all(calls);
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
    for (let shard = 0; shard < SHARDS; shard++) released += await this.sweepShard(shard, cutoff);
    return released;
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

/**
 * When the ledger drain runs in the background: no polling loop while idle (an idle instance makes at most a few
 * Redis calls a second). After a pass the loop waits for work, then starts the next pass no sooner than the drain
 * interval after the previous one started (so under load it runs every interval, as a timer would, and an event
 * written while idle is drained at once):
 * - one Redis server: the wait is a blocking XREAD over every shard's stream from id 0-0, on a connection of its
 *   own, repeated every WAKE_BLOCK_MS while every stream stays empty. It answers as soon as any stream holds an entry
 *   (one already there, or the next XADD of any instance). Entries the pass could not drain (PostgreSQL down,
 *   another instance's lock) answer it at once, so those are retried every interval, as before.
 * - Redis Cluster: one command may only name keys of one slot, so the wait is a back-off: it doubles after a pass
 *   that drained nothing, up to CLUSTER_MAX_WAIT_MS, and drops back to the interval after a pass that drained.
 * A failed pass, or releases still pending, retry after the interval without waiting for work.
 * Exactly-once does not depend on when passes run (drain.ts): this only decides how often they start.
 */
import { Cluster } from 'ioredis';
import { SHARDS, type Layout } from './layout';
import type { RedisClient } from './redis-client';

/** How long one blocking XREAD waits for an entry (an idle instance's only drain call, once per this). */
export const WAKE_BLOCK_MS = 5_000;
/** The longest wait between passes of an idle instance on a Redis Cluster. */
export const CLUSTER_MAX_WAIT_MS = 4_000;

/** What a background pass found. */
export interface PassOutcome {
  /** The pass failed or left work it must retry (pending releases): run again after the interval. */
  retry: boolean;
  /** Stream entries drained. */
  drained: number;
}

/** Runs `pass` in the background: after each pass, waits for work (blocking read or back-off) and the interval. */
export class DrainLoop {
  private stopped = false;
  private sleeping: { timer: NodeJS.Timeout; wake: () => void } | null = null;
  private readonly waker: RedisClient | null;

  constructor(
    redis: RedisClient,
    private readonly layout: Layout,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<PassOutcome>,
  ) {
    // Why a connection of its own: a blocked XREAD holds its connection; admissions must not queue behind it.
    this.waker =
      redis instanceof Cluster
        ? null
        : redis.duplicate({
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            commandTimeout: WAKE_BLOCK_MS + 2_000,
          });
    this.waker?.on('error', () => undefined);
  }

  /** Start the loop (the first pass after one interval). */
  start(): void {
    void this.run();
  }

  /** Stop: no pass starts after this (a pass in progress finishes); the blocking connection is closed. */
  stop(): void {
    this.stopped = true;
    this.sleeping?.wake();
    this.waker?.disconnect();
  }

  private async run(): Promise<void> {
    let backoff = this.intervalMs;
    await this.sleep(this.intervalMs);
    while (!this.stopped) {
      const started = Date.now();
      // The pass reports its own failures; a throw is retried like one, so the loop never ends before stop().
      const outcome = await this.pass().catch((): PassOutcome => ({ retry: true, drained: 0 }));
      if (this.stopped) return;
      if (!outcome.retry) {
        if (this.waker !== null) await this.untilWork(this.waker);
        else {
          backoff = outcome.drained > 0 ? this.intervalMs : Math.min(backoff * 2, CLUSTER_MAX_WAIT_MS);
          await this.sleep(backoff - (Date.now() - started));
        }
      }
      await this.sleep(this.intervalMs - (Date.now() - started));
    }
  }

  /** Resolve when any shard's stream holds an entry, or at once when the read fails (or the loop stops). */
  private async untilWork(waker: RedisClient): Promise<void> {
    const streams = Array.from({ length: SHARDS }, (_, i) => this.layout.stream(i));
    const ids = streams.map(() => '0-0');
    try {
      while (!this.stopped) {
        const found = await waker.xread('COUNT', 1, 'BLOCK', WAKE_BLOCK_MS, 'STREAMS', ...streams, ...ids);
        if (found !== null) return;
      }
    } catch {
      // Redis unreachable or the loop stopped: the next pass (after the interval) reports and retries.
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleeping = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.sleeping = { timer, wake: done };
    });
  }
}

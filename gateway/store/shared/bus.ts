/**
 * Cache invalidation over Redis pub/sub (D18, D19: revocation, suspension, whitelist and plan changes reach every
 * instance in under a second). A dedicated subscriber connection; after it reconnects, every cache entry is dropped
 * because messages may have been missed meanwhile. Each message names the bus that sent it, and a bus ignores its
 * own: the instance that made a change has already dropped the entries (SharedStore.changed), and applying the echo
 * again would discard identifications loaded after the change for nothing.
 */
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { Invalidation } from './cache';
import type { RedisClient } from './redis-client';

/** Publishes and receives invalidations on one channel. */
export class InvalidationBus {
  private sub: RedisClient | null = null;
  /** This bus's name in its messages (12 random characters; messages without one come from older builds). */
  private readonly origin = randomBytes(9).toString('base64url');

  constructor(
    private readonly client: RedisClient,
    private readonly channel: string,
    private readonly onMessage: (msg: Invalidation) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Subscribe (keeps resubscribing after reconnects); resolves once subscribed or after `waitMs`. */
  async start(waitMs = 2_000): Promise<void> {
    const sub: RedisClient =
      this.client instanceof Cluster
        ? this.client.duplicate(undefined, { enableOfflineQueue: true })
        : this.client.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    this.sub = sub;
    let readyOnce = false;
    sub.on('error', () => undefined);
    sub.on('ready', () => {
      // After a reconnect, messages sent while disconnected are lost: start from an empty cache.
      if (readyOnce) this.onMessage({ k: 'all' });
      readyOnce = true;
    });
    sub.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      try {
        const msg = JSON.parse(text) as Invalidation & { o?: string };
        if (msg.o !== this.origin) this.onMessage(msg);
      } catch {
        this.onMessage({ k: 'all' });
      }
    });
    const subscribed = sub.subscribe(this.channel).catch((err: unknown) => this.onError(err));
    await Promise.race([subscribed, new Promise((r) => setTimeout(r, waitMs).unref())]);
  }

  /** Tell every other instance to drop stale entries (the caller has dropped its own). */
  async publish(msg: Invalidation): Promise<void> {
    try {
      await this.client.publish(this.channel, JSON.stringify({ ...msg, o: this.origin }));
    } catch (err) {
      // The change is committed in PostgreSQL; other instances see it when their entries expire (ttl).
      this.onError(err);
    }
  }

  /** Close the subscriber connection. */
  async stop(): Promise<void> {
    const sub = this.sub;
    this.sub = null;
    if (sub) sub.disconnect();
  }
}

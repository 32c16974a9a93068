/**
 * The live processes of one shared store, for the burst limits' shares (gateway/policy/burst.ts; docs/decisions.md,
 * "Burst limits"). Every gateway process (each worker of each instance) writes a heartbeat into one sorted set every
 * second (member: its id, score: the time); the members seen within the last 3 s are the peers, and a process's rank
 * is its place among their sorted ids. No request waits for it: the share a request reads is the last one learned.
 */
import { randomBytes } from 'node:crypto';
import { scriptsOf, type RedisClient } from './redis-client';

/** How many live processes share the store, and this one's place among them (0-based). */
export interface PeerShare {
  peers: number;
  rank: number;
}

/** How often a process writes its heartbeat, and how long one counts it as alive. */
export const PEER_BEAT_MS = 1_000;
export const PEER_TTL_MS = 3_000;

/** One process's membership in the store's peer set. */
export class PeerHeartbeat {
  private current: PeerShare = { peers: 1, rank: 0 };
  private timer: NodeJS.Timeout | null = null;
  readonly id = `${process.pid}-${randomBytes(6).toString('hex')}`;

  constructor(
    private readonly redis: RedisClient,
    /** The sorted set's key (one per store prefix). */
    private readonly key: string,
    private readonly onError: (err: unknown) => void = () => undefined,
    private readonly beatMs = PEER_BEAT_MS,
    private readonly ttlMs = PEER_TTL_MS,
  ) {}

  /** The share last learned (one process until the first heartbeat answers). */
  get share(): PeerShare {
    return this.current;
  }

  /** Write the first heartbeat now, then one per interval. */
  async start(): Promise<void> {
    await this.beat().catch(this.onError);
    this.timer = setInterval(() => void this.beat().catch(this.onError), this.beatMs);
    this.timer.unref();
  }

  /** One heartbeat: record this process, drop the silent ones, read the live set (one script call on one key). */
  async beat(): Promise<PeerShare> {
    const now = Date.now();
    const members = await scriptsOf(this.redis).ggPeers(1, this.key, now, this.id, this.ttlMs);
    if (!Array.isArray(members)) return this.current;
    const ids = (members as string[]).slice().sort();
    const rank = ids.indexOf(this.id);
    this.current = { peers: Math.max(1, ids.length), rank: rank < 0 ? 0 : rank };
    return this.current;
  }

  /** Stop beating and leave the set, so the others take the whole limit back at their next heartbeat. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.redis.zrem(this.key, this.id).catch(this.onError);
  }
}

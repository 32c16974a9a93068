/**
 * Where a process learns its share of the burst limits (docs/decisions.md, "Burst limits"): on the shared store from
 * the store's peer heartbeat (every process of every instance); with `workers: N` on the embedded store from the
 * worker count and the worker's number; otherwise the process enforces the whole limit.
 */
import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { WHOLE, type BurstShare } from '../policy/burst';
import type { Store } from '../store/ports';
import { PeerHeartbeat } from '../store/shared/peers';
import { SharedStore } from '../store/shared/store';

/** A share source: read per decision; started and stopped with the gateway. */
export interface BurstShareSource {
  share(): BurstShare;
  start(): void;
  stop(): Promise<void>;
}

/** The share source of this process for `store` and `workers`. */
export function burstShareSource(store: Store, workers: number, logger: Logger): BurstShareSource {
  if (store instanceof SharedStore) {
    const peers = new PeerHeartbeat(store.redis, `${store.layout.prefix}burst:peers`, (err) =>
      logger.warn({ err }, 'burst limits: peer heartbeat failed (the last share stays)'),
    );
    return {
      share: () => peers.share,
      start: () => void peers.start(),
      stop: () => peers.stop(),
    };
  }
  const id = cluster.isWorker ? (cluster.worker?.id ?? 1) : 1;
  const fixed: BurstShare =
    workers > 1 && cluster.isWorker ? { peers: workers, rank: (id - 1) % workers } : WHOLE;
  return { share: () => fixed, start: () => undefined, stop: () => Promise.resolve() };
}

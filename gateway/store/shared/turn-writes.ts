/**
 * One write per event-loop turn for the admissions sent to a single Redis server (issue 12): the first admission of
 * a turn corks the connection's socket and the end of the turn (setImmediate, after the I/O callbacks that queued
 * them) uncorks it, so the EVALSHAs of the requests read in one turn leave in one writev instead of one write each.
 * Like the embedded store's group commit, a lone request waits for nothing but the end of its own turn. The commands,
 * their order, their replies and their errors are ioredis's as before; only the socket writes are merged. A cluster
 * client is left alone (its commands go to several node connections).
 */
import type { Socket } from 'node:net';
import { Redis } from 'ioredis';
import type { RedisClient } from './redis-client';

const corked = new WeakSet<Socket>();

/** Hold `client`'s socket writes until the end of this turn (no-op for a cluster or a connection not ready). */
export function writeAtEndOfTurn(client: RedisClient): void {
  if (!(client instanceof Redis) || client.status !== 'ready') return;
  const stream = (client as unknown as { stream?: Socket }).stream;
  if (stream === undefined || corked.has(stream) || stream.destroyed) return;
  corked.add(stream);
  stream.cork();
  setImmediate(() => {
    corked.delete(stream);
    stream.uncork();
  });
}

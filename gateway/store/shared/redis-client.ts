/**
 * The Redis connection of the shared store: one server (`redis://…`) or a Redis Cluster
 * (`redis+cluster://host:port,host:port`, seeds). Scripts are registered with defineCommand (EVALSHA, EVAL on
 * NOSCRIPT). Commands fail fast while disconnected and are never re-sent after a lost reply, so a script runs at most
 * once per call (a re-sent admission could count twice).
 */
import { once } from 'node:events';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { ADMIT_LUA, RELEASE_LUA } from './lua-admit';
import { CREDIT_LUA, DEBIT_LUA, WALLET_INIT_LUA } from './lua-wallet';

export type RedisClient = Redis | Cluster;

type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/** The store's scripts, bound to a client (each call is one EVALSHA). */
export interface Scripts {
  ggAdmit: Script;
  ggRelease: Script;
  ggWalletInit: Script;
  ggCredit: Script;
  ggDebit: Script;
}

const SCRIPTS: Record<keyof Scripts, string> = {
  ggAdmit: ADMIT_LUA,
  ggRelease: RELEASE_LUA,
  ggWalletInit: WALLET_INIT_LUA,
  ggCredit: CREDIT_LUA,
  ggDebit: DEBIT_LUA,
};

/** Options shared by single-server and cluster node connections. */
const NODE_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  commandTimeout: 2_000,
  connectTimeout: 2_000,
  enableReadyCheck: true,
};

/** Parse `redis+cluster://[user:pass@]h1:p1,h2:p2` into seeds, or null for a single-server URL. */
export function clusterSeeds(
  url: string,
): { seeds: { host: string; port: number }[]; password?: string } | null {
  const m = /^redis\+cluster:\/\/(?:([^:@/]*):([^@/]*)@)?([^/?#]+)\/?$/.exec(url);
  if (!m) return null;
  const seeds = (m[3] ?? '').split(',').map((hp) => {
    const i = hp.lastIndexOf(':');
    const port = Number(hp.slice(i + 1));
    if (i < 0 || !Number.isInteger(port))
      throw new Error(`store.redis: bad cluster seed "${hp}" (want host:port)`);
    return { host: hp.slice(0, i), port };
  });
  return m[2] ? { seeds, password: decodeURIComponent(m[2]) } : { seeds };
}

/** Connect (reconnecting forever in the background) and register the scripts. */
export function connectRedis(url: string): { client: RedisClient; cluster: boolean } {
  const cluster = clusterSeeds(url);
  const retry = (times: number) => Math.min(50 * times, 1_000);
  let client: RedisClient;
  if (cluster) {
    client = new Cluster(cluster.seeds, {
      enableOfflineQueue: false,
      clusterRetryStrategy: retry,
      slotsRefreshTimeout: 2_000,
      redisOptions: { ...NODE_OPTIONS, ...(cluster.password ? { password: cluster.password } : {}) },
    });
  } else {
    client = new Redis(url, { ...NODE_OPTIONS, enableOfflineQueue: false, retryStrategy: retry });
  }
  for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { lua });
  // Errors surface on each command; the connection's own error events only say it is reconnecting.
  client.on('error', () => undefined);
  return { client, cluster: cluster !== null };
}

/** The client's scripts. */
export function scriptsOf(client: RedisClient): Scripts {
  return client as unknown as Scripts;
}

/** Wait until the client is ready, at most `ms`; false when it is not (it keeps reconnecting). */
export async function waitReady(client: RedisClient, ms: number): Promise<boolean> {
  if (client.status === 'ready') return true;
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
  const ready = once(client, 'ready').then(() => 'ready' as const);
  return (await Promise.race([ready, timer])) === 'ready';
}

/**
 * The Redis connection of the shared store: one server (`redis://…`) or a Redis Cluster
 * (`redis+cluster://host:port,host:port`, seeds). Scripts are registered with defineCommand (EVALSHA, EVAL on
 * NOSCRIPT). Commands fail fast while disconnected and are never re-sent after a lost reply, so a script runs at most
 * once per call (a re-sent admission could count twice).
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { ADMIT_LUA, ADMIT_MANY_LUA, KEEP_LUA, REBUILD_LUA, RELEASE_LUA } from './lua-admit';
import { CREDIT_LUA, DEBIT_LUA, WALLET_INIT_LUA } from './lua-wallet';
import { FLUSH_LUA, GRANT_LUA, RECLAIM_LUA } from './lease/lua-lease';

export type RedisClient = Redis | Cluster;

type Script = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/** The store's scripts, bound to a client (each call is one EVALSHA). */
export interface Scripts {
  ggAdmit: Script;
  ggAdmitMany: Script;
  ggRelease: Script;
  ggKeep: Script;
  ggRebuild: Script;
  ggWalletInit: Script;
  ggCredit: Script;
  ggDebit: Script;
  ggGrant: Script;
  ggFlush: Script;
  ggReclaim: Script;
  ggDue: Script;
  ggPeers: Script;
}

/**
 * The lease indexes' due accounts in one call (one Redis server: every shard's index is on it): KEYS the indexes,
 * ARGV now and the most per index. Reply: the account ids, index by index.
 */
const DUE_LUA = `local out = {}
for _, index in ipairs(KEYS) do
  local ids = redis.call('ZRANGEBYSCORE', index, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
  for _, id in ipairs(ids) do out[#out + 1] = id end
end
return out`;

/**
 * One burst-limit heartbeat (peers.ts) in one call: KEYS[1] the peer set; ARGV now, this process's id, the TTL in ms.
 * Records the process, drops the silent ones, keeps the set alive, and replies with the live ids.
 */
const PEERS_LUA = `local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
redis.call('PEXPIRE', KEYS[1], ttl * 10)
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

const SCRIPTS: Record<keyof Scripts, string> = {
  ggAdmit: ADMIT_LUA,
  ggAdmitMany: ADMIT_MANY_LUA,
  ggRelease: RELEASE_LUA,
  ggKeep: KEEP_LUA,
  ggRebuild: REBUILD_LUA,
  ggWalletInit: WALLET_INIT_LUA,
  ggCredit: CREDIT_LUA,
  ggDebit: DEBIT_LUA,
  ggGrant: GRANT_LUA,
  ggFlush: FLUSH_LUA,
  ggReclaim: RECLAIM_LUA,
  ggDue: DUE_LUA,
  ggPeers: PEERS_LUA,
};

/**
 * Options shared by single-server and cluster node connections. `disconnectTimeout` (read by ioredis, missing from
 * its types) bounds a timer that disconnect() arms per socket and clears only on a later 'close': a socket that
 * never connected has already closed, so the timer would hold the process for its full length (2 s by default).
 */
const NODE_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  commandTimeout: 2_000,
  connectTimeout: 2_000,
  enableReadyCheck: true,
  ...({ disconnectTimeout: 200 } as RedisOptions),
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

/**
 * Wait until the client is ready, at most `ms` (connection errors meanwhile are remembered, not thrown: ioredis keeps
 * retrying); `lastError` is the latest one when it did not become ready.
 */
export async function waitReady(
  client: RedisClient,
  ms: number,
): Promise<{ ready: boolean; lastError: unknown }> {
  if (client.status === 'ready') return { ready: true, lastError: null };
  let lastError: unknown = null;
  const onError = (err: unknown) => {
    lastError = err;
  };
  let timer: NodeJS.Timeout | undefined;
  let onReady: (() => void) | undefined;
  client.on('error', onError);
  try {
    const ready = await new Promise<boolean>((resolve) => {
      onReady = () => resolve(true);
      client.once('ready', onReady);
      timer = setTimeout(() => resolve(false), ms);
    });
    return { ready, lastError: ready ? null : lastError };
  } finally {
    clearTimeout(timer);
    client.off('error', onError);
    if (onReady) client.off('ready', onReady);
  }
}

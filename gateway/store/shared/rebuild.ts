/**
 * Counters after Redis restarted empty (issue 13 item 8): each shard has a ready sentinel without TTL. While it is
 * missing, admissions in the shard are refused as unavailable (the script checks it) and readiness says redis:
 * false; the rebuild restores the shard's daily counters of the last three days from PostgreSQL's drained
 * `counters_daily` (max with what Redis holds), then sets the sentinel. Wallets re-initialise from the ledger on
 * their own; slot sets, undrained events and release marks are lost (docs/shared-state.md).
 */
import type { Knex } from 'knex';
import { DAY_MS, utcDay } from '../../core/clock';
import { pgFault, redisFault } from './errors';
import { SHARDS, shardOf, type Layout } from './layout';
import { scriptsOf, type RedisClient } from './redis-client';
import { COUNTER_TTL_S } from './step';

/** Counters per script call. */
const CHUNK = 500;
/** How long one instance holds a shard's rebuild lock. */
const LOCK_MS = 60_000;

/** The shards whose ready sentinel is missing. */
export async function shardsNotReady(redis: RedisClient, layout: Layout): Promise<number[]> {
  try {
    const found = await Promise.all(
      Array.from({ length: SHARDS }, (_, shard) => redis.exists(layout.ready(shard))),
    );
    return found.flatMap((n, shard) => (n === 0 ? [shard] : []));
  } catch (err) {
    throw redisFault(err);
  }
}

/** Rebuild every shard that is not ready (skipping those another instance is rebuilding); how many were rebuilt. */
export async function rebuildCounters(
  redis: RedisClient,
  knex: Knex,
  layout: Layout,
  now: number,
): Promise<number> {
  const missing = await shardsNotReady(redis, layout);
  if (missing.length === 0) return 0;
  let rows: { day: string; counter_id: string; used: string | number }[];
  try {
    rows = await knex('counters_daily')
      .where('day', '>=', utcDay(now - 2 * DAY_MS))
      .select('day', 'counter_id', 'used');
  } catch (err) {
    throw pgFault(err);
  }
  const byShard = new Map<number, typeof rows>();
  for (const r of rows) {
    const s = shardOf(r.counter_id);
    byShard.set(s, [...(byShard.get(s) ?? []), r]);
  }
  let rebuilt = 0;
  for (const shard of missing) {
    if (await rebuildShard(redis, layout, shard, byShard.get(shard) ?? [])) rebuilt += 1;
  }
  return rebuilt;
}

async function rebuildShard(
  redis: RedisClient,
  layout: Layout,
  shard: number,
  rows: { day: string; counter_id: string; used: string | number }[],
): Promise<boolean> {
  try {
    const got = await redis.set(layout.rebuildLock(shard), '1', 'PX', LOCK_MS, 'NX');
    if (got !== 'OK') return false;
    for (let i = 0; i === 0 || i < rows.length; i += CHUNK) {
      const chunk = rows.slice(i, i + CHUNK);
      const last = i + CHUNK >= rows.length;
      const keys = chunk.map((r) => layout.counter(r.counter_id, r.day));
      const values = chunk.map((r) => String(r.used));
      await scriptsOf(redis).ggRebuild(
        keys.length + 1,
        layout.ready(shard),
        ...keys,
        COUNTER_TTL_S,
        last ? 1 : 0,
        ...values,
      );
    }
    await redis.del(layout.rebuildLock(shard));
    return true;
  } catch (err) {
    throw redisFault(err);
  }
}

/**
 * Benchmark of the shared store (issue 4, acceptance 7): Redis round trips per admitted request, read from Redis's
 * own INFO commandstats (cmdstat_evalsha calls / admitted requests), plus throughput and latency of `admit`.
 * Runs against a private redis-server and a three-node Redis Cluster it starts on free loopback ports (so no other
 * client's commands are counted) and a throw-away PostgreSQL database on 127.0.0.1:5432.
 * Usage: npm run bench:shared -- [admissions=20000] [concurrency=32]
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../../gateway/core/clock';
import { createStore, type AdmissionPlan, type Store } from '../../gateway/store';
import { createDatabase, runBench, startRedis, startRedisCluster } from '../lib/services';
import { drainOf } from '../lib/stores';
import { readWindow, resetStats } from '../lib/redis-stats';

const N = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const T0 = Date.UTC(2026, 10, 22, 10);
const DAY = '2026-11-22';

/** Calls per command since the last reset, summed over the nodes (INFO commandstats, lib/redis-stats.ts). */
async function commandCalls(ports: number[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const port of ports)
    for (const [name, n] of Object.entries((await readWindow(port, [])).calls))
      out[name] = (out[name] ?? 0) + n;
  return out;
}

/** Zero every node's command statistics. */
async function resetAll(ports: number[]): Promise<void> {
  for (const port of ports) await resetStats(port);
}

type Mix = 'A' | 'B';

/** Rule set B's keyed plan: the key's slots, then the account's counter and wallet (spec 5.4, 5.5). */
function planB(
  base: Omit<AdmissionPlan, 'slots' | 'free' | 'overflow'>,
  keyId: string,
  accountId: string,
  free: boolean,
): AdmissionPlan {
  return {
    ...base,
    keyId,
    usage: [`key:${keyId}`, `account:${accountId}`],
    slots: [
      {
        scope: `key:${keyId}`,
        member: '203.0.113.1',
        capacity: 2,
        mode: 'sliding',
        windowMs: 86_400_000,
        refuse: 'key_ip_limit',
      },
    ],
    free: [{ id: `account:${accountId}`, limit: free ? 1_000_000 : 0 }],
    overflow: { kind: 'bill', accountId, price: 1, refuse: 'quota_exceeded' },
  };
}

/** The request mix: anonymous free, keyed free, keyed billed (A: key + network counters; B: account counter). */
function plans(accountId: string, mix: Mix): (i: number) => AdmissionPlan {
  return (i) => {
    const kind = i % 3;
    const net = `network:198.51.${(i >> 8) & 255}.${i & 255}/32`;
    const keyId = `key_bench${i % 50}`;
    const base = {
      id: `bench-${i}-${randomBytes(3).toString('hex')}`,
      now: T0,
      day: DAY,
      keyId: null,
      usage: [net],
    };
    if (kind === 0) {
      return {
        ...base,
        slots: [],
        free: [{ id: net, limit: 2500 }],
        overflow: { kind: 'refuse', code: 'quota_exceeded' },
      };
    }
    if (mix === 'B') return planB(base, keyId, accountId, kind === 1);
    const slot = {
      scope: `key:${keyId}`,
      member: '203.0.113.1',
      capacity: 2,
      mode: 'fixed' as const,
      windowMs: 86_400_000,
      refuse: 'key_ip_limit' as const,
    };
    return {
      ...base,
      keyId,
      usage: [`key:${keyId}`, `account:${accountId}`],
      slots: [slot],
      free: [
        { id: `key:${keyId}`, limit: kind === 1 ? 1_000_000 : 0 },
        { id: net, limit: 2500 },
      ],
      overflow: { kind: 'bill', accountId, price: 1, refuse: 'no_credits' },
    };
  };
}

async function measure(label: string, mix: Mix, store: Store, ports: number[]): Promise<void> {
  const acc = await store.createAccount({ email: `bench-${mix}-${Date.now()}@example.org` }, T0);
  await store.credit(acc.id, 10 * N, null, T0);
  const mk = plans(acc.id, mix);
  for (let i = 0; i < 200; i++) await store.admit(mk(N + i)); // warm-up: scripts loaded, wallet initialised
  await drainOf(store).flush();
  await resetAll(ports);
  const lat: number[] = [];
  let admitted = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const i = next++;
        const t = performance.now();
        if ((await store.admit(mk(i))).admitted) admitted += 1;
        lat.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const during = await commandCalls(ports);
  await drainOf(store).flush();
  const after = await commandCalls(ports);
  lat.sort((a, b) => a - b);
  const pct = (p: number) => (lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? 0).toFixed(2);
  // commandstats also counts the commands a script runs inside Redis; XRANGE and XDEL are only sent by clients.
  const drainCalls = (after.xrange ?? 0) + (after.xdel ?? 0);
  console.log(
    `\n== ${label}, rule set ${mix} plans: ${N} admissions, concurrency ${CONCURRENCY}, mix 1/3 anonymous, 1/3 keyed free, 1/3 keyed billed`,
  );
  console.log(`admitted: ${admitted}`);
  console.log(`cmdstat_evalsha calls: ${during.evalsha ?? 0}  (eval: ${during.eval ?? 0})`);
  console.log(`EVALSHA per admitted request: ${((during.evalsha ?? 0) / admitted).toFixed(3)}`);
  console.log(
    `background drain XRANGE+XDEL per admitted request (amortised): ${(drainCalls / admitted).toFixed(3)}`,
  );
  console.log(
    `throughput: ${Math.round(N / seconds)} admissions/s; latency ms p50 ${pct(0.5)} p99 ${pct(0.99)}`,
  );
  console.log(`commandstats calls (incl. commands run inside scripts): ${JSON.stringify(after)}`);
}

/** How fast the drain writes a backlog of N events (rule set A mix) to PostgreSQL, with no admissions meanwhile. */
async function drainThroughput(postgres: string, redis: string): Promise<void> {
  const store = await createStore(
    { kind: 'shared', postgres, redis, keyPrefix: 'bench-drain:', drainIntervalMs: 3_600_000 },
    { clock: systemClock },
  );
  try {
    const acc = await store.createAccount({ email: `bench-drain-${Date.now()}@example.org` }, T0);
    await store.credit(acc.id, 10 * N, null, T0);
    const mk = plans(acc.id, 'A');
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < N) await store.admit(mk(next++));
      }),
    );
    const t = performance.now();
    const drained = await drainOf(store).flush();
    const ms = performance.now() - t;
    console.log(
      `\n== drain (one Redis): a backlog of ${drained} events written to PostgreSQL in ${ms.toFixed(0)} ms`,
    );
    console.log(`drain throughput: ${Math.round(drained / (ms / 1000))} events/s`);
  } finally {
    await store.close();
  }
}

runBench(async () => {
  for (const cluster of [false, true]) {
    const postgres = await createDatabase();
    const redis = cluster ? await startRedisCluster(3) : { nodes: [await startRedis()], url: '' };
    const url = cluster ? redis.url : `redis://127.0.0.1:${redis.nodes[0]?.port}`;
    const ports = redis.nodes.map((n) => n.port);
    const store = await createStore(
      { kind: 'shared', postgres, redis: url, keyPrefix: 'bench:' },
      { clock: systemClock },
    );
    try {
      for (const mix of ['A', 'B'] as const) {
        await measure(cluster ? 'Redis Cluster (3 masters)' : 'one Redis', mix, store, ports);
      }
      if (!cluster) await drainThroughput(postgres, url);
    } finally {
      await store.close();
    }
  }
});

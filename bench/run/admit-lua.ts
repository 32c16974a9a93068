/**
 * `npm run bench:admit-lua`: what the shared store's admission script costs Redis per admission (issue 12: Redis's
 * own CPU beside the gateway's), and what two changes to how it is called would save. A private redis-server; a rule
 * set A keyed, billed plan as the gateway builds it (stepArgs: one IP slot, the key's and the network's counters, the
 * account's wallet); marks and in-flight entries deleted every 100 admissions, as the keeper does. Variants, in
 * alternating rounds:
 * - `script`: ADMIT_LUA, one EVALSHA per admission (what the store runs);
 * - `7 per call`: the same script body run for 7 admissions in one EVALSHA (about what one event-loop turn holds at
 *   32 connections), to price the per-call share;
 * - `flat ARGV`: the spec passed as separate arguments instead of one JSON string (no cjson.decode);
 * - `empty`: a script that only returns, with the same keys and spec: the per-call floor.
 * Prints Redis's µs per admission (INFO commandstats: the EVALSHA time over the admissions) and the wall time, which
 * also holds this program's own work (the flat variant re-reads the JSON spec to build its arguments).
 * BENCH_ADMISSIONS (default 30,000 per variant and round), BENCH_ROUNDS (default 3).
 */
import Redis from 'ioredis';
import { ADMIT_LUA } from '../../gateway/store/shared/lua-admit';
import { Layout, shardOf } from '../../gateway/store/shared/layout';
import { stepArgs, type StepInput } from '../../gateway/store/shared/step';
import { runBench, startRedis } from '../lib/services';
import { keyedBilledPlan } from '../lib/plans';

const N = Number(process.env['BENCH_ADMISSIONS'] ?? 30_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const PER_CALL = 7;
const KEEP_EVERY = 100;

/** The script body as a function of (K, SPEC), looped over ARGV pairs (key count, spec); one reply per admission. */
const BATCHED = [
  'local function admit(K, SPEC)',
  ADMIT_LUA.replace('local s = cjson.decode(ARGV[1])', 'local s = cjson.decode(SPEC)')
    .split('KEYS[')
    .join('K['),
  'end',
  'local out, ki, a = {}, 0, 1',
  'for i = 1, #ARGV / 2 do',
  '  local nk, K = tonumber(ARGV[a]), {}',
  '  for j = 1, nk do K[j] = KEYS[ki + j] end',
  '  out[i] = admit(K, ARGV[a + 1]); ki = ki + nk; a = a + 2',
  'end',
  'return out',
].join('\n');

/** The spec's fields as ARGV (what the gateway would send instead of JSON), rebuilt into the same table. */
const FLAT_DECODE = `local s = {id = ARGV[1], st = tonumber(ARGV[2]), now = ARGV[3], day = ARGV[4], ttl = tonumber(ARGV[5]),
  ctrTtl = ARGV[6], notFree = ARGV[7] == '1', ctrOpt = ARGV[8] == '1', mark2 = tonumber(ARGV[9]), ev = tonumber(ARGV[10]),
  key = ARGV[11], uj = ARGV[12], fj = ARGV[13], slots = {}, ctr = {},
  of = {t = ARGV[14], k = tonumber(ARGV[15]), acc = ARGV[16], price = tonumber(ARGV[17]), code = ARGV[18]}}
local a = 21
for i = 1, tonumber(ARGV[19]) do
  s.slots[i] = {k = tonumber(ARGV[a]), m = ARGV[a + 1], cap = tonumber(ARGV[a + 2]), fixed = ARGV[a + 3] == '1',
    w = tonumber(ARGV[a + 4]), code = ARGV[a + 5]}
  a = a + 6
end
for i = 1, tonumber(ARGV[20]) do s.ctr[i] = {k = tonumber(ARGV[a]), l = tonumber(ARGV[a + 1])}; a = a + 2 end`;
const FLAT = ADMIT_LUA.replace('local s = cjson.decode(ARGV[1])', FLAT_DECODE)
  .split("table.concat(s.u, ' ')")
  .join('s.uj')
  .split("table.concat(s.f, ' ')")
  .join('s.fj');

interface Spec {
  id: string;
  st: number;
  now: number;
  day: string;
  ttl: number;
  ctrTtl: number;
  notFree: boolean;
  ctrOpt: boolean;
  mark2: number;
  ev: number;
  key: string;
  u: string[];
  f: string[];
  of: { t: string; k: number; acc: string; price: number; code: string };
  slots: { k: number; m: string; cap: number; fixed: boolean; w: number; code: string }[];
  ctr: { k: number; l: number }[];
}

function flatArgs(s: Spec): (string | number)[] {
  const out: (string | number)[] = [
    s.id,
    s.st,
    s.now,
    s.day,
    s.ttl,
    s.ctrTtl,
    s.notFree ? 1 : 0,
    s.ctrOpt ? 1 : 0,
  ];
  out.push(
    s.mark2,
    s.ev,
    s.key,
    s.u.join(' '),
    s.f.join(' '),
    s.of.t,
    s.of.k,
    s.of.acc,
    s.of.price,
    s.of.code,
  );
  out.push(s.slots.length, s.ctr.length);
  for (const sl of s.slots) out.push(sl.k, sl.m, sl.cap, sl.fixed ? 1 : 0, sl.w, sl.code);
  for (const c of s.ctr) out.push(c.k, c.l);
  return out;
}

type Variant = 'script' | '7 per call' | 'flat ARGV' | 'empty';
const LUA: Record<Variant, string> = {
  script: ADMIT_LUA,
  '7 per call': BATCHED,
  'flat ARGV': FLAT,
  empty: 'return {1, 0, 0, {}, 1}',
};

const layout = new Layout('bench:');
const ACCOUNT = 'acc_bench0000000000000';
const KEY = 'key_bench0000000000000';

async function measure(redis: Redis, variant: Variant, round: number): Promise<[number, number]> {
  await redis.flushall();
  await redis.config('RESETSTAT');
  const sha = (await redis.script('LOAD', LUA[variant])) as string;
  const shard = shardOf(`account:${ACCOUNT}`);
  await redis.set(layout.ready(shard), '1');
  await redis.hset(layout.wallet(ACCOUNT), 'b', '1000000000');
  let pipe = redis.pipeline();
  let batchKeys: string[] = [];
  let batchArgs: (string | number)[] = [];
  const kept: string[] = [];
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const p = keyedBilledPlan(
      `adm_${round}_${i}_${'0'.repeat(20)}`,
      Date.now(),
      '2026-11-26',
      KEY,
      ACCOUNT,
      '127.0.0.1/32',
    );
    const step: StepInput = {
      shard,
      step: 0,
      slots: p.slots,
      counters: p.free,
      notFree: false,
      overflow: p.overflow,
      event: true,
    };
    const { keys, spec } = stepArgs(layout, p, step);
    if (variant === '7 per call') {
      batchKeys.push(...keys);
      batchArgs.push(keys.length, spec);
      if (batchArgs.length === 2 * PER_CALL || i === N - 1) {
        pipe.evalsha(sha, batchKeys.length, ...batchKeys, ...batchArgs);
        batchKeys = [];
        batchArgs = [];
      }
    } else if (variant === 'flat ARGV')
      pipe.evalsha(sha, keys.length, ...keys, ...flatArgs(JSON.parse(spec) as Spec));
    else pipe.evalsha(sha, keys.length, ...keys, spec);
    kept.push(p.id);
    if ((i + 1) % (KEEP_EVERY - (KEEP_EVERY % PER_CALL)) === 0 || i === N - 1) {
      for (const [err] of (await pipe.exec()) ?? []) if (err) throw err;
      pipe = redis.pipeline();
      const keep = redis.pipeline();
      for (const id of kept) keep.del(layout.mark(shard, id, 0)).zrem(layout.inflight(shard), `${id}:0`);
      await keep.exec();
      kept.length = 0;
    }
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1_000 / N;
  const stats = (await redis.info('commandstats')).split('\n').find((l) => l.startsWith('cmdstat_evalsha:'));
  const usec = Number(/usec=(\d+)/.exec(stats ?? '')?.[1] ?? NaN);
  if (variant !== 'empty' && (await redis.xlen(layout.stream(shard))) !== N)
    throw new Error(`${variant}: expected ${N} admission events`);
  return [usec / N, wall];
}

runBench(async () => {
  const server = await startRedis();
  const redis = new Redis(server.url);
  try {
    const results = new Map<Variant, [number, number][]>();
    for (let round = 0; round < ROUNDS; round++)
      for (const v of Object.keys(LUA) as Variant[]) {
        const r = await measure(redis, v, round);
        results.set(v, [...(results.get(v) ?? []), r]);
      }
    console.log(
      `admission script, ${N} keyed billed admissions per variant and round, ${ROUNDS} rounds (µs per admission)`,
    );
    console.log('| variant | Redis (EVALSHA time) | wall, pipelined |');
    console.log('|---|---|---|');
    for (const [v, rs] of results)
      console.log(
        `| ${v} | ${rs.map(([u]) => u.toFixed(2)).join(' / ')} | ${rs.map(([, w]) => w.toFixed(2)).join(' / ')} |`,
      );
  } finally {
    await redis.quit();
  }
});

/**
 * `npm run bench:gateway`: requests/s and p50/p99 latency through the gateway (anonymous, and keyed billed) next to
 * the backend alone, measured in one run on loopback, on the embedded store and on the shared store (issue 4,
 * acceptance 7). Backend and gateways run as their own processes (compiled `dist/`). The shared store runs on a
 * private redis-server on a free loopback port and a throw-away PostgreSQL database on 127.0.0.1:5432, both started
 * and removed by the bench; for those runs it also reports Redis commands per admitted request from Redis's own
 * INFO commandstats, reset (CONFIG RESETSTAT) after the warm-up, right before each measured window.
 * Load: /usr/bin/wrk when present, else an in-Node keep-alive generator.
 * Env: BENCH_SECONDS (default 10), BENCH_WARMUP_SECONDS (default 2), BENCH_CONNECTIONS (default 32).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../gateway/core/keys';
import { createStore, type StoreConfig } from '../gateway/store';
import { backendRuns, connectorCostLines } from './backends';
import { cleanupAll, createDatabase, onCleanup, startRedis, track, type BenchRedis } from './bench-services';
import { CONNECTIONS, HAVE_WRK, load, type Result } from './load';
import {
  insideScripts,
  perAdmitted,
  readWindow,
  resetStats,
  scriptCommandNames,
  type RedisWindow,
} from './redis-stats';
import { repoRoot } from '../gateway/core/paths';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const WARMUP = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 2);
const PEPPER = 'bench-pepper-0123456789abcdef';
const PATH = '/v1/reverse?lat=48.8584&lon=2.2945';

interface Proc {
  url: string;
  child: ChildProcess;
}

/** Spawn a compiled entry point and wait for its first "listening on URL". */
function start(script: string, args: string[]): Promise<Proc> {
  const child = spawn(process.execPath, [path.join(repoRoot(), script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1] as string, child });
    });
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}: ${out}`)));
  });
}

/** Stop a child (SIGTERM, SIGKILL after 10 s) and wait. */
function stop(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
    p.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    p.child.kill('SIGTERM');
  });
}

/** One line of the report. */
interface Row {
  name: string;
  result: Result;
  names: string[];
  redis?: RedisWindow;
}

/** Warm up, then measure one URL; with `redisPort`, Redis's command statistics of exactly the measured window. */
async function measure(
  name: string,
  url: string,
  procs: { name: string; pid: number | undefined }[],
  headers: Record<string, string> = {},
  redisPort?: number,
): Promise<Row> {
  const pids = procs.map((p) => p.pid);
  if (WARMUP > 0) await load(url, [], headers, WARMUP);
  if (redisPort !== undefined) await resetStats(redisPort);
  const result = await load(url, pids, headers, SECONDS);
  const row: Row = { name, result, names: procs.map((p) => p.name) };
  if (redisPort !== undefined) row.redis = await readWindow(redisPort, scriptCommandNames(repoRoot()));
  return row;
}

/** The store section of a gateway config file. */
function storeYaml(cfg: StoreConfig): string {
  if (cfg.kind === 'embedded') return `store: { kind: embedded, path: "${cfg.path}" }`;
  const prefix = cfg.keyPrefix !== undefined ? `, keyPrefix: "${cfg.keyPrefix}"` : '';
  return `store: { kind: shared, postgres: "${cfg.postgres}", redis: "${cfg.redis}"${prefix} }`;
}

/** A gateway process with its own config on the given store. */
async function gateway(dir: string, name: string, backendUrl: string, freePerDay: number, cfg: StoreConfig) {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: bench-admin-token-0123456 }',
      `backend: { url: "${backendUrl}" }`,
      storeYaml(cfg),
      `keyPepper: "${PEPPER}"`,
      'hosts: [{ name: localhost, adapter: native }]',
      `limits: { freePerDay: ${freePerDay} }`,
      'log: { level: warn }',
    ].join('\n'),
  );
  return start('dist/gateway/main.js', ['--config', file]);
}

/** A gateway process on config lines of its own (backends, hosts), anonymous with an unbounded allowance. */
async function configured(dir: string, name: string, lines: string[], store: string) {
  const file = path.join(dir, `${name}.yaml`);
  const common = [
    'policy: A',
    'listen: { host: 127.0.0.1, port: 0 }',
    'admin: { listen: { host: 127.0.0.1, port: 0 }, token: bench-admin-token-0123456 }',
    store,
    `keyPepper: "${PEPPER}"`,
    'limits: { freePerDay: 1000000000 }',
    'log: { level: warn }',
  ];
  writeFileSync(file, [...common, ...lines].join('\n'));
  return start('dist/gateway/main.js', ['--config', file]);
}

/** An account with plenty of credit and a pay-as-you-go key in the store; its id and the key. */
async function seed(cfg: StoreConfig): Promise<{ accountId: string; key: string }> {
  const store = await createStore(cfg, { clock: systemClock });
  try {
    const acc = await store.createAccount({ email: 'bench@example.com', name: 'Bench' }, Date.now());
    await store.credit(acc.id, 1_000_000_000, 'bench', Date.now());
    const key = generateKey();
    await store.createKey(
      { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg' },
      Date.now(),
    );
    return { accountId: acc.id, key };
  } finally {
    await store.close();
  }
}

/** Ledger rows of the account (the billed run must have charged). */
async function ledgerRows(cfg: StoreConfig, accountId: string): Promise<number> {
  const store = await createStore(cfg, { clock: systemClock });
  try {
    return (await store.ledger(accountId, 1)).length;
  } finally {
    await store.close();
  }
}

/** Anonymous and keyed-billed runs through gateways on one store. */
async function storeRuns(label: string, cfg: StoreConfig, backend: Proc, dir: string, redis?: BenchRedis) {
  const { accountId, key } = await seed(cfg);
  const rows: Row[] = [];
  const extra = redis ? [{ name: 'redis', pid: redis.child.pid }] : [];
  const runs = [
    { name: `gateway ${label}, anonymous`, free: 1_000_000_000, headers: {} },
    { name: `gateway ${label}, key, billed`, free: 0, headers: { 'X-API-Key': key } },
  ];
  for (const run of runs) {
    const gw = await gateway(dir, `${label}-${run.free}`, backend.url, run.free, cfg);
    try {
      const procs = [
        { name: 'gateway', pid: gw.child.pid },
        { name: 'backend', pid: backend.child.pid },
        ...extra,
      ];
      rows.push(await measure(run.name, gw.url + PATH, procs, run.headers, redis?.port));
    } finally {
      await stop(gw);
    }
  }
  if ((await ledgerRows(cfg, accountId)) === 0)
    console.log(`warning: the billed run on ${label} charged nothing`);
  return rows;
}

/** CPU µs per request of each process, e.g. "gateway 310 + backend 80". */
function cpuPerRequest(r: Result, names: string[]): string {
  return r.cpuMs.map((ms, i) => `${names[i]} ${((ms * 1000) / r.requests).toFixed(0)}`).join(' + ');
}

function printRows(rows: Row[]): void {
  console.log('| scenario | requests/s | p50 ms | p99 ms | non-2xx | CPU µs per request |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const { name, result: r, names } of rows) {
    const cells = [
      r.rps.toFixed(0),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      String(r.non2xx),
      cpuPerRequest(r, names),
    ];
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}

/** Redis round trips per admitted request (admitted = 2xx counted by the load generator in the window). */
function printRedis(rows: Row[]): void {
  const shared = rows.filter((r) => r.redis);
  if (shared.length === 0) return;
  console.log('\nRedis INFO commandstats over each measured window (CONFIG RESETSTAT after the warm-up):\n');
  const head = [
    'scenario',
    'admitted (2xx, wrk)',
    'EVALSHA',
    'EVAL',
    'EVALSHA+EVAL − admitted',
    '**EVALSHA+EVAL per admitted**',
    'all commands',
    'all per admitted',
    'inside scripts* per admitted',
    'other client commands per admitted',
  ];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|---${'|---:'.repeat(head.length - 1)}|`);
  for (const { name, result, redis } of shared) {
    const w = redis as RedisWindow;
    const admitted = result.requests - result.non2xx;
    const per = (n: number) => (n / admitted).toFixed(3);
    const inside = insideScripts(w);
    const other = w.total - w.evalsha - w.eval - inside;
    const calls = w.evalsha + w.eval;
    const cells = [admitted, w.evalsha, w.eval, calls - admitted, `**${per(calls)}**`, w.total, per(w.total)];
    console.log(`| ${name} | ${[...cells, per(inside), per(other)].join(' | ')} |`);
  }
  console.log("\nper command, calls per admitted request (* = a command the store's Lua scripts call):");
  for (const { name, result, redis } of shared) {
    console.log(`- ${name}: ${perAdmitted(redis as RedisWindow, result.requests - result.non2xx)}`);
  }
}

async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'geogate-bench-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const loadStart = loadavg()[0]?.toFixed(1) ?? '?';
  const startedAt = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const backend = await start('dist/backend/main.js', ['--port', '0']);
  onCleanup(() => stop(backend));
  const rows: Row[] = [];
  const alone = await measure('backend alone', backend.url + PATH.replace('/v1', ''), [
    { name: 'backend', pid: backend.child.pid },
  ]);
  rows.push(alone);
  rows.push(
    ...(await storeRuns('embedded', { kind: 'embedded', path: path.join(dir, 'geogate.db') }, backend, dir)),
  );
  // Issue 10: the nominatim connector and a passthrough route beside the geogate kind (bench/backends.ts).
  const backendStore = storeYaml({ kind: 'embedded', path: path.join(dir, 'backends.db') });
  rows.push(
    ...(await backendRuns({ start, stop, measure, gateway: (n, l) => configured(dir, n, l, backendStore) })),
  );
  let sharedError: unknown = null;
  try {
    const redis = await startRedis();
    const postgres = await createDatabase();
    const shared: StoreConfig = { kind: 'shared', postgres, redis: redis.url, keyPrefix: 'bench:' };
    rows.push(...(await storeRuns('shared', shared, backend, dir, redis)));
  } catch (err) {
    sharedError = err; // Why: the figures measured so far are still printed; the run then fails (exit 1).
  }

  const tool = HAVE_WRK ? `wrk -t2 -c${CONNECTIONS}` : `in-Node generator, ${CONNECTIONS} connections`;
  console.log(
    `\ngeogate gateway benchmark (${startedAt} UTC): GET ${PATH}, ${WARMUP} s warm-up + ${SECONDS} s measured each, ${tool}, loopback`,
  );
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  const model = cpus()[0]?.model.trim() ?? '?';
  console.log(
    `machine: ${cpus().length} CPUs (${model}), load average ${loadStart} at start, ${load} at end`,
  );
  console.log(
    'shared store: private redis-server (no persistence) + throw-away PostgreSQL database, loopback\n',
  );
  printRows(rows);
  console.log(`\nconnector cost in process (issue 10):\n${connectorCostLines().join('\n')}`);
  printRedis(rows);
  if (sharedError !== null) throw sharedError;
}

run()
  .then(() => cleanupAll())
  .catch(async (err: unknown) => {
    console.error(err);
    await cleanupAll();
    process.exit(1);
  });

/**
 * `npm run bench:gateway`: geogate beside its two references in one run (D37): nginx (Debian's, one worker, keep-alive
 * upstream to the same backend) and the floor (bench/lib/bare-proxy.ts, a bare Node proxy of the same call), both in
 * every round of every scenario. Per scenario and round: nginx, the floor and geogate at 32 connections (wrk -t2
 * -c32), the floor and geogate at one (wrk -t1 -c1), then the floor and geogate at a fixed rate (hey). Prints
 * requests/s and the ratios to the floor and to nginx, CPU µs per request over the floor, p50/p99 (c1: geogate − floor,
 * c32: geogate / floor), CPU of each process tree from /proc (gateway with its workers, backend, nginx, Redis), Redis
 * calls per admitted request (INFO commandstats, reset before round 1's 32-connection window), the RSS of the gateway
 * tree, the idle Redis calls of one shared-store gateway, and the targets table (bench/lib/targets.ts, PASS/MISS).
 * Scenarios (bench/lib/scenarios.ts): keyed billed, anonymous from one address, anonymous over 100,000 addresses
 * (bench/lib/addresses.ts), on both stores, with 1 and 2 workers, on the 10-key store and on the large one (1,000,000
 * keys and 1,000,000 addresses seen today, written in bulk by bench/lib/seed.ts). wrk, hey and nginx are installed
 * with apt-get when missing. The backend alone, each scenario at 32 connections, is printed first. The library
 * scenario's rounds also load an Express floor (the floor's handler in an Express app at /geo) at 32 connections and
 * print what Express adds over the floor and what geogate adds over the Express floor (CPU µs per request).
 * Env: BENCH_SECONDS (default 5) per window, BENCH_WARMUP_SECONDS (default 2) per gateway, BENCH_ROUNDS (default 1;
 * 3 for figures to keep), BENCH_CONNECTIONS (default 32), BENCH_ONLY (a regular expression on scenario names, "idle"
 * for the idle measurement, "backends" for the connector runs), BENCH_LARGE_KEYS (default 1000000), BENCH_ADDRESSES
 * (default 100000), BENCH_IDLE_SECONDS (default 10), BENCH_NODE_ARGS (extra node options for the gateway, e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof"), BENCH_ELD_DIR (event-loop delay histograms of each gateway process written
 * there, see bench/lib/eld-probe.ts), BENCH_BASE (the main.js of another build, e.g. of main: each 1-worker scenario
 * then also runs that build, in the same rounds, as "… [base]"), BENCH_RATE (default 1000: the fixed rate of the
 * steadier CPU figure; 0 leaves it out), BENCH_ABLATE (comma-separated ablations, each parts joined by "+": admit,
 * render, metrics, journal, fold, fold<ms>, thread; each runs beside every single-worker scenario as "… [ablate: X]",
 * this build composed with those parts by bench/models/ablate.ts). docs/benchmarks.md describes each.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../gateway/core/paths';
import { runBench, onCleanup, type BenchRedis } from '../lib/services';
import { start, stop, type Proc } from '../lib/spawn';
import { ablatedParts } from '../models/ablate';
import { extraScenarios, FLOOR, PATH, SCENARIOS, type Scenario } from '../lib/scenarios';
import { fixedRate, haveWrk, load, MANY, ONE, type Result, type Shape } from '../lib/load';
import { startNginx } from '../lib/nginx';
import { printSummary, type Measurement } from '../lib/report';
import { printTargets } from '../lib/targets';
import {
  insideScripts,
  perAdmitted,
  readWindow,
  resetStats,
  scriptCommandNames,
  type RedisWindow,
} from '../lib/redis-stats';
import { BENCH_PEPPER, ledgerRows, type Seeded } from '../lib/seed';
import { writeAddressScript } from '../lib/addresses';
import { gateway, stopGateway, Stores, storeYaml, type Gateway } from '../lib/gateways';
import { idleCommands, printIdle, type IdleFigures } from '../lib/idle';
import { ensureDebian, HEY, WRK } from '../lib/tools';
import { backendRuns, connectorCostLines } from '../lib/backends';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const WARMUP = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 1);
/** How long the idle measurement watches Redis. */
const IDLE_SECONDS = Number(process.env['BENCH_IDLE_SECONDS'] ?? 10);
/** The fixed rate (requests/s) of the steadier CPU figure (bench/lib/load.ts fixedRate); 0: no fixed-rate windows. */
const RATE = Number(process.env['BENCH_RATE'] ?? 1_000);
const ONLY = process.env['BENCH_ONLY'] ? new RegExp(process.env['BENCH_ONLY']) : null;
const BASE = process.env['BENCH_BASE'];
/** Ablations (bench/models/ablate.ts) run beside each single-worker scenario, e.g. "admit,admit+render". */
const ABLATE = (process.env['BENCH_ABLATE'] ?? '').split(',').filter((a) => a !== '');

/** One gateway of a scenario: this build, the base build, or this build with stages ablated; its own store. */
interface Variant {
  scenario: Scenario;
  seeded: Seeded;
  /** The base build's main.js. */
  main?: string;
  /** The parts of bench/models/ablate.ts (GG_ABLATE). */
  ablate?: string;
}

/** The processes every scenario is measured beside (D37), started once for the run. */
interface References {
  nginx: Proc;
  floor: Proc;
}

/** Measure one scenario: warm up, then rounds of nginx / floor / geogate at 32 connections, floor / geogate at one. */
async function runScenario(
  s: Scenario,
  index: number,
  env: { dir: string; backend: Proc; refs: References; stores: Stores; addresses: string },
): Promise<Measurement[]> {
  const seeded = await env.stores.get(s.store, s.size);
  // The base build and each ablation get their own store (the same seed), so no two share a file or a key prefix.
  // They run beside only where they can (a build without `workers:` refuses a multi-worker config).
  const beside = s.workers === 1 && s.program === undefined;
  const variants: Variant[] = [];
  if (beside && BASE !== undefined)
    variants.push({
      scenario: { ...s, name: `${s.name} [base]` },
      main: BASE,
      seeded: await env.stores.get(s.store, s.size, '-base'),
    });
  variants.push({ scenario: s, seeded });
  if (beside)
    for (const [i, spec] of ABLATE.entries())
      variants.push({
        scenario: { ...s, name: `${s.name} [ablate: ${spec}]`, targets: false },
        ablate: spec,
        seeded: await env.stores.get(s.store, s.size, `-ablate${i}`),
      });
  const redis = s.store === 'shared' ? env.stores.redis : null;
  const gws: Gateway[] = [];
  const ms: Measurement[] = variants.map((v) => ({ scenario: v.scenario, rounds: [], redis: null }));
  const { nginx, floor } = env.refs;
  let expressFloor: Proc | null = null;
  try {
    for (const [i, v] of variants.entries())
      gws.push(await gateway(env.dir, s, `${index}-${i}`, env.backend.url, v.seeded.cfg, v.main, v.ablate));
    const headers = s.headers ?? {};
    const gwPath = s.path ?? PATH;
    const ngPath = s.nginxPath ?? gwPath;
    // nginx and the floor get the same wrk script as the gateway they are compared with (they ignore its headers).
    const scriptOf = (v: Variant) =>
      s.caller === 'billed'
        ? { script: v.seeded.script }
        : s.caller === 'addresses'
          ? { script: env.addresses }
          : {};
    const shapes = variants.map((v) => ({
      many: { ...MANY, ...scriptOf(v) } as Shape,
      one: { ...ONE, ...scriptOf(v) } as Shape,
    }));
    const { many, one } = shapes[shapes.length - 1] as { many: Shape; one: Shape };
    // A forward-auth scenario's auth nginx is counted with the gateway (its CPU is added to the gateway's figure).
    const procs = (gw: Gateway) => [
      gw.child.pid,
      env.backend.child.pid,
      redis?.child.pid,
      gw.companion?.child.pid,
    ];
    const ngProcs = [nginx.child.pid, env.backend.child.pid];
    const flProcs = [floor.child.pid, env.backend.child.pid];
    for (const [i, gw] of gws.entries())
      if (WARMUP > 0) await load(gw.url + gwPath, [], headers, WARMUP, shapes[i]?.many ?? many);
    // The library scenario's Express floor: the floor's handler in an Express app at the same mount point, so the
    // round's line shows what Express costs without geogate beside what the app with geogate costs.
    if (s.mount === 'library') {
      expressFloor = await start('dist/bench/lib/bare-proxy.js', [
        '--backend',
        env.backend.url,
        '--server',
        'express',
      ]);
      if (WARMUP > 0) await load(expressFloor.url + gwPath, [], headers, WARMUP, many);
    }
    for (let r = 0; r < ROUNDS; r++) {
      const nginx32 = await load(nginx.url + ngPath, ngProcs, headers, SECONDS, many);
      const floor32 = await load(floor.url + ngPath, flProcs, headers, SECONDS, many);
      const express32 =
        expressFloor === null
          ? null
          : await load(
              expressFloor.url + gwPath,
              [expressFloor.child.pid, env.backend.child.pid],
              headers,
              SECONDS,
              many,
            );
      const gw32: Result[] = [];
      for (const [i, gw] of gws.entries()) {
        if (redis && r === 0) await resetStats(redis.port);
        gw32.push(
          withCompanion(await load(gw.url + gwPath, procs(gw), headers, SECONDS, shapes[i]?.many ?? many)),
        );
        if (redis && r === 0)
          (ms[i] as Measurement).redis = await readWindow(redis.port, scriptCommandNames(repoRoot()));
      }
      const floor1 = await load(floor.url + ngPath, flProcs, headers, SECONDS, one);
      const gw1: Result[] = [];
      for (const [i, gw] of gws.entries())
        gw1.push(
          withCompanion(await load(gw.url + gwPath, procs(gw), headers, SECONDS, shapes[i]?.one ?? one)),
        );
      // The fixed-rate windows (hey sends one header set): one key for billed runs (the key cache path is the same);
      // none for the many-addresses runs, whose per-address work hey cannot vary (their CPU is the 32-connection one).
      const fixed = RATE > 0 && s.caller !== 'addresses';
      const fixedHeaders = (v: Variant) =>
        s.billed ? { ...headers, 'x-api-key': v.seeded.keys[0] as string } : headers;
      const floorFixed = fixed
        ? fixedRate(floor.url + ngPath, flProcs, fixedHeaders(variants[0] as Variant), SECONDS, RATE)
        : null;
      const gwFixed: (Result | null)[] = [];
      for (const [i, gw] of gws.entries())
        gwFixed.push(
          fixed
            ? withCompanion(
                fixedRate(gw.url + gwPath, procs(gw), fixedHeaders(variants[i] as Variant), SECONDS, RATE),
              )
            : null,
        );
      const avg = loadavg()[0] ?? NaN;
      for (const [i, m] of ms.entries()) {
        const g32 = gw32[i] as Result;
        const g1 = gw1[i] as Result;
        m.rounds.push({
          nginx32,
          floor32,
          gw32: g32,
          floor1,
          gw1: g1,
          floorFixed,
          gwFixed: gwFixed[i] ?? null,
          load: avg,
        });
        console.log(
          `  ${m.scenario.name}, round ${r + 1}: nginx ${nginx32.rps.toFixed(0)}/s, floor ${floor32.rps.toFixed(0)}/s, ` +
            `geogate ${g32.rps.toFixed(0)}/s (${(g32.rps / floor32.rps).toFixed(2)}× floor), ` +
            `${((Number(g32.cpuMs[0]) * 1000) / g32.requests).toFixed(0)} µs; ` +
            `p99 c1 ${floor1.p99.toFixed(2)} → ${g1.p99.toFixed(2)} ms; RSS ${g32.rssMb.toFixed(0)} MB; load ${avg.toFixed(1)}` +
            (express32 === null ? '' : `; ${expressFloorLine(express32, floor32, g32)}`),
        );
      }
    }
  } finally {
    await Promise.all(gws.map(stopGateway));
    if (expressFloor !== null) await stop(expressFloor);
  }
  return ms;
}

/** CPU µs per request of a result's process tree (the first measured one). */
const cpuPerRequest = (r: Result): number => ((r.cpuMs[0] ?? NaN) * 1000) / Math.max(1, r.requests);

/** The Express floor's figures in a library round's line: its rate, CPU, and what Express and geogate each add. */
function expressFloorLine(express: Result, floor: Result, gw: Result): string {
  const e = cpuPerRequest(express);
  return (
    `Express floor ${express.rps.toFixed(0)}/s, ${e.toFixed(0)} µs (Express +${(e - cpuPerRequest(floor)).toFixed(0)} µs ` +
    `over the floor, geogate +${(cpuPerRequest(gw) - e).toFixed(0)} µs over the Express floor)`
  );
}

/** A forward-auth scenario's figure: the auth nginx's CPU (the 4th process tree) added to the gateway's. */
function withCompanion(r: Result): Result {
  const edge = r.cpuMs[3];
  if (edge !== undefined && Number.isFinite(edge)) r.cpuMs[0] = (r.cpuMs[0] ?? 0) + edge;
  return r;
}

/** Redis round trips per admitted request (admitted = 2xx counted by wrk in round 1's 32-connection window). */
function printRedis(ms: Measurement[]): void {
  const shared = ms.filter((m) => m.redis !== null && m.rounds[0]);
  if (shared.length === 0) return;
  console.log(
    "\nRedis INFO commandstats over round 1's 32-connection window (CONFIG RESETSTAT before it):\n",
  );
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
  for (const m of shared) {
    const w = m.redis as RedisWindow;
    const r = (m.rounds[0] as Measurement['rounds'][number]).gw32;
    const admitted = r.requests - r.non2xx;
    const per = (n: number) => (n / admitted).toFixed(3);
    const inside = insideScripts(w);
    const other = w.total - w.evalsha - w.eval - inside;
    const calls = w.evalsha + w.eval;
    const cells = [admitted, w.evalsha, w.eval, calls - admitted, `**${per(calls)}**`, w.total, per(w.total)];
    console.log(`| ${m.scenario.name} | ${[...cells, per(inside), per(other)].join(' | ')} |`);
  }
  console.log("\nper command, calls per admitted request (* = a command the store's Lua scripts call):");
  for (const m of shared) {
    const r = (m.rounds[0] as Measurement['rounds'][number]).gw32;
    console.log(`- ${m.scenario.name}: ${perAdmitted(m.redis as RedisWindow, r.requests - r.non2xx)}`);
  }
}

/** The earlier table: backend alone and each scenario's first 32-connection window. */
function printEarlier(alone: Result, ms: Measurement[]): void {
  const us = (cpu: number | undefined, n: number) => ((Number(cpu) * 1000) / n).toFixed(0);
  console.log('| scenario | requests/s | p50 ms | p99 ms | non-2xx | CPU µs per request |');
  console.log('|---|---:|---:|---:|---:|---|');
  const row = (name: string, r: Result, cpu: string) =>
    console.log(
      `| ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.non2xx} | ${cpu} |`,
    );
  row('backend alone', alone, `backend ${us(alone.cpuMs[0], alone.requests)}`);
  for (const m of ms) {
    const r = m.rounds[0]?.gw32;
    if (!r) continue;
    const redis = m.scenario.store === 'shared' ? ` + redis ${us(r.cpuMs[2], r.requests)}` : '';
    row(
      `gateway ${m.scenario.name}`,
      r,
      `gateway ${us(r.cpuMs[0], r.requests)} + backend ${us(r.cpuMs[1], r.requests)}${redis}`,
    );
  }
}

async function run(): Promise<void> {
  for (const spec of ABLATE) ablatedParts(spec); // an unknown part fails here, before anything starts
  ensureDebian(WRK, 'wrk');
  if (RATE > 0) ensureDebian(HEY, 'hey');
  const dir = mkdtempSync(path.join(tmpdir(), 'geogate-bench-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const loadStart = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const startedAt = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const backend = await start('dist/backend/main.js', ['--port', '0']);
  onCleanup(() => stop(backend));
  const nginxProc = await startNginx(backend.url);
  const nginx: Proc = { url: nginxProc.url, child: nginxProc.child };
  const alone = await load(backend.url + PATH.replace('/v1', ''), [backend.child.pid], {}, SECONDS, MANY);
  const stores = new Stores(dir);
  const chosen = [...SCENARIOS, ...extraScenarios].filter((s) => ONLY === null || ONLY.test(s.name));
  // D37: the floor runs beside nginx in every round of every scenario; one process for the run, like nginx.
  const floor = await start(FLOOR.program as string, ['--backend', backend.url]);
  onCleanup(() => stop(floor));
  if (WARMUP > 0) for (const ref of [nginx, floor]) await load(ref.url + PATH, [], {}, WARMUP, MANY);
  const refs: References = { nginx, floor };
  const addresses = writeAddressScript(dir);
  const measured: Measurement[] = [];
  let failure: unknown = null;
  const started = Date.now();
  for (const [i, s] of chosen.entries()) {
    try {
      measured.push(...(await runScenario(s, i, { dir, backend, refs, stores, addresses })));
    } catch (err) {
      failure = err; // Why: the figures measured so far are still printed; the run then fails (exit 1).
      console.error(`bench: scenario "${s.name}" failed:`, err);
    }
  }
  // An idle gateway on the shared store: Redis commands a second with no traffic (BENCH_ONLY=idle runs only this).
  let idle: IdleFigures | null = null;
  if (ONLY === null || ONLY.test('idle')) {
    try {
      const seeded = await stores.get('shared', 'small', '-idle');
      const redis = stores.redis as BenchRedis;
      const s = SCENARIOS.find((c) => c.store === 'shared' && c.caller === 'anonymous') as Scenario;
      const gw = await gateway(dir, s, 'idle', backend.url, seeded.cfg);
      try {
        idle = await idleCommands(redis.port, scriptCommandNames(repoRoot()), IDLE_SECONDS);
      } finally {
        await stop(gw);
      }
    } catch (err) {
      failure = err;
      console.error('bench: the idle measurement failed:', err);
    }
  }
  const scenarioMinutes = (Date.now() - started) / 60_000;
  // Issue 10: the nominatim connector and a passthrough route beside the geogate kind, against one replay backend
  // (bench/lib/backends.ts), anonymous on an embedded store of their own; BENCH_ONLY=backends runs only these.
  const backendRows: { name: string; r: Result }[] = [];
  if (ONLY === null || ONLY.test('backends')) {
    try {
      const store = storeYaml({ kind: 'embedded', path: path.join(dir, 'backends.db') });
      backendRows.push(
        ...(await backendRuns({
          start: (script, args) => start(script, args),
          stop,
          measure: async (name, url, procs) => {
            if (WARMUP > 0) await load(url, [], {}, WARMUP, MANY);
            return {
              name,
              r: await load(
                url,
                procs.map((p) => p.pid),
                {},
                SECONDS,
                MANY,
              ),
            };
          },
          gateway: (name, lines) => {
            const file = path.join(dir, `${name}.yaml`);
            writeFileSync(
              file,
              [
                'policy: A',
                'listen: { host: 127.0.0.1, port: 0 }',
                'admin: { listen: { host: 127.0.0.1, port: 0 }, token: bench-admin-token-0123456 }',
                store,
                `keyPepper: "${BENCH_PEPPER}"`,
                'limits: { freePerDay: 1000000000 }',
                'log: { level: warn }',
                'drain: { delayMs: 0 }',
                ...lines,
              ].join('\n'),
            );
            return start('dist/gateway/main.js', ['--config', file]);
          },
        })),
      );
    } catch (err) {
      failure = err;
      console.error('bench: the backends scenarios failed:', err);
    }
  }
  for (const seeded of stores.all()) {
    const s = await seeded;
    if (chosen.some((c) => c.billed && c.store === s.cfg.kind) && (await ledgerRows(s)) === 0)
      console.log(`warning: no billed run on the ${s.cfg.kind} store charged anything`);
  }

  const tool = haveWrk() ? `wrk -t2 -c${MANY.connections} and wrk -t1 -c1` : 'in-Node generator';
  console.log(
    `\ngeogate gateway benchmark (${startedAt} UTC): GET ${PATH}, ${WARMUP} s warm-up per gateway, ${ROUNDS} rounds of ${SECONDS} s windows, ${tool}, loopback`,
  );
  const model = cpus()[0]?.model.trim() ?? '?';
  const loadEnd = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `machine: ${cpus().length} CPUs (${model}), load average ${loadStart} at start, ${loadEnd} at end`,
  );
  console.log('nginx: Debian nginx, 1 worker, keep-alive upstream (64) to the same backend, no access log');
  console.log(
    'shared store: private redis-server (no persistence) + throw-away PostgreSQL database, loopback\n',
  );
  console.log(
    `run: ${chosen.length} scenarios in ${scenarioMinutes.toFixed(1)} min (seeding included), ` +
      `${ROUNDS} round(s) of ${SECONDS} s windows\n`,
  );
  printEarlier(alone, measured);
  console.log('');
  printSummary(measured);
  printRedis(measured);
  if (idle !== null) printIdle(idle);
  printTargets(measured, idle);
  if (backendRows.length > 0) {
    console.log('\nbackends (issue 10), anonymous, embedded store, against one replay backend:\n');
    console.log('| scenario | requests/s | p50 ms | p99 ms | gateway CPU µs per request |');
    console.log('|---|---:|---:|---:|---:|');
    for (const { name, r } of backendRows)
      console.log(
        `| ${name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${((Number(r.cpuMs[0]) * 1000) / r.requests).toFixed(0)} |`,
      );
    console.log(`\nconnector cost in process (issue 10):\n${connectorCostLines().join('\n')}`);
  }
  if (failure !== null) throw failure;
}

runBench(run);

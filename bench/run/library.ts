/**
 * `npm run bench:library`: geogate used as a library (an Express app with the middleware, bench/run/library-app.ts;
 * and the middleware as the listener of Node's own server: the library without a framework) beside the standalone
 * gateway process, the floor (a bare Node proxy of the same call, bench/lib/bare-proxy.ts) and nginx (Debian's, one
 * worker), all in front of one backend, with wrk. Per round and target: 32 connections (wrk -t2
 * -c32) then one (wrk -t1 -c1); anonymous calls and keyed calls (a seeded key, embedded store, free allowance large
 * enough never to bill). Prints requests/s, p50/p99 and the CPU µs per request of the target's process tree.
 * The Express floor (the floor's handler mounted at /geo in an Express app, bench/lib/bare-proxy.ts `--server express`)
 * runs beside the library's Express app, so that what geogate adds inside Express (library − Express floor) reads beside
 * what it adds standalone (standalone − floor); the last table prints both, per caller and shape, the median of the rounds.
 * Env: BENCH_SECONDS (default 5) per window, BENCH_WARMUP_SECONDS (default 2), BENCH_ROUNDS (default 2),
 * BENCH_NODE_ARGS (extra node options for the geogate processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"),
 * BENCH_BASE (the dist/ folder of another build, inside a folder holding package.json and node_modules: its library
 * apps then run beside this build's, in the same rounds, as "… [base]").
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load, MANY, ONE, type Result, type Shape } from '../lib/load';
import { startNginx } from '../lib/nginx';
import { PATH } from '../lib/scenarios';
import { BENCH_PEPPER, seedStore } from '../lib/seed';
import { onCleanup, runBench } from '../lib/services';
import { start as spawnProc, stop, type Proc } from '../lib/spawn';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const WARMUP = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
const BASE = process.env['BENCH_BASE'];

/** One target: where to send PATH and the process tree whose CPU is counted. */
interface Target {
  name: string;
  url: string;
  pid: number | undefined;
  /** The key it knows (its own store); null for the floor and nginx, which read none. */
  key: string | null;
}

/** The config both geogate targets run with. */
function configFile(dir: string, name: string, backendUrl: string, store: string): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: bench-admin-token-0123456 }',
      `backend: { url: "${backendUrl}" }`,
      `store: { kind: embedded, path: "${store}" }`,
      `keyPepper: "${BENCH_PEPPER}"`,
      'hosts: [{ name: localhost, adapter: native }]',
      'limits: { freePerDay: 1000000000 }',
      'log: { level: warn }',
      'drain: { delayMs: 0 }',
    ].join('\n'),
  );
  return file;
}

const pid = (p: Proc) => p.child.pid;

/**
 * Start a process and stop it (SIGTERM) when the bench ends: its open pipes would otherwise keep the bench running, and
 * a profiled process (BENCH_NODE_ARGS="--cpu-prof") writes its profile only when it exits on its own.
 */
async function start(...args: Parameters<typeof spawnProc>): Promise<Proc> {
  const p = await spawnProc(...args);
  onCleanup(() => stop(p));
  return p;
}
const row = (name: string, shape: string, r: Result): string =>
  [
    name.padEnd(38),
    shape.padEnd(6),
    r.rps.toFixed(0).padStart(7),
    r.p50.toFixed(2).padStart(7),
    r.p99.toFixed(2).padStart(7),
    ((((r.cpuMs[0] ?? NaN) * 1000) / Math.max(1, r.requests)) | 0).toString().padStart(7),
    String(r.non2xx).padStart(6),
  ].join(' ');

runBench(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-bench-library-'));
  const backend = await start('dist/backend/main.js', ['--port', '0']);
  // Each geogate process has a store of its own (one embedded file is not shared by unrelated processes).
  const geogate = async (name: string, program: string, args: string[] = []) => {
    const store = path.join(dir, `${name}.db`);
    const seeded = await seedStore({ kind: 'embedded', path: store }, 0, dir, name);
    const proc = await start(
      program,
      ['--config', configFile(dir, name, backend.url, store), ...args],
      NODE_ARGS,
    );
    return { proc, key: seeded.keys[0] as string };
  };
  const floor = await start('dist/bench/lib/bare-proxy.js', ['--backend', backend.url]);
  const expressFloor = await start('dist/bench/lib/bare-proxy.js', [
    '--backend',
    backend.url,
    '--server',
    'express',
  ]);
  const nginx = await startNginx(backend.url);
  const standalone = await geogate('standalone', 'dist/gateway/main.js');
  const library = await geogate('library', 'dist/bench/run/library-app.js', ['--server', 'express']);
  const bare = await geogate('library-node', 'dist/bench/run/library-app.js', ['--server', 'node']);
  const targets: Target[] = [
    { name: FLOOR, url: floor.url + PATH, pid: pid(floor), key: null },
    { name: EXPRESS_FLOOR, url: `${expressFloor.url}/geo${PATH}`, pid: pid(expressFloor), key: null },
    { name: 'nginx', url: nginx.url + PATH, pid: nginx.child.pid, key: null },
    {
      name: STANDALONE,
      url: standalone.proc.url + PATH,
      pid: pid(standalone.proc),
      key: standalone.key,
    },
    { name: LIBRARY_NODE, url: bare.proc.url + PATH, pid: pid(bare.proc), key: bare.key },
    {
      name: LIBRARY,
      url: `${library.proc.url}/geo${PATH}`,
      pid: pid(library.proc),
      key: library.key,
    },
  ];
  if (BASE !== undefined) {
    const app = path.resolve(BASE, 'bench/run/library-app.js');
    for (const [name, server] of [
      [LIBRARY_NODE, 'node'],
      [LIBRARY, 'express'],
    ] as const) {
      const base = await geogate(`${server}-base`, app, ['--server', server]);
      const mount = server === 'express' ? '/geo' : '';
      targets.push({
        name: `${name} [base]`,
        url: base.proc.url + mount + PATH,
        pid: pid(base.proc),
        key: base.key,
      });
    }
  }
  const keyOf = (t: Target) => (t.key === null ? {} : { 'x-api-key': t.key });
  for (const t of targets) await load(t.url, [t.pid], keyOf(t), WARMUP, MANY);
  console.log(`\n${SECONDS} s windows, ${ROUNDS} rounds; CPU µs per request of the target's process tree\n`);
  console.log(
    ['target'.padEnd(38), 'conns'.padEnd(6), '   req/s', '    p50', '    p99', ' cpu µs', ' non2x'].join(''),
  );
  const shapes: [string, Shape][] = [
    ['32', MANY],
    ['1', ONE],
  ];
  // CPU µs per request by target, caller and shape, one figure per round.
  const cpu = new Map<string, number[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}`);
    for (const caller of ['anonymous', 'keyed'] as const) {
      for (const [label, shape] of shapes) {
        for (const t of targets) {
          if (t.key === null && caller === 'keyed') continue;
          const headers = caller === 'keyed' ? keyOf(t) : {};
          const name = t.key === null ? t.name : `${t.name} ${caller}`;
          const r = await load(t.url, [t.pid], headers, SECONDS, shape);
          console.log(row(name, label, r));
          const k = `${t.name}|${caller}|${label}`;
          cpu.set(k, [...(cpu.get(k) ?? []), ((r.cpuMs[0] ?? NaN) * 1000) / Math.max(1, r.requests)]);
        }
      }
    }
  }
  printAdded(
    cpu,
    targets,
    shapes.map(([label]) => label),
  );
});

const FLOOR = 'floor (bare proxy)';
const EXPRESS_FLOOR = 'Express floor (bare proxy in Express)';
const STANDALONE = 'geogate standalone';
const LIBRARY_NODE = 'geogate library (node http)';
const LIBRARY = 'geogate library (express)';

/** The median of the rounds' figures. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/**
 * What geogate adds, in CPU µs per request over the floor of the same server (the median of each round's difference):
 * the standalone process and the library on Node's server over the floor, the library in Express over the Express
 * floor; and what Express adds to the floor.
 */
function printAdded(cpu: Map<string, number[]>, targets: Target[], labels: string[]): void {
  const over = (target: string, floor: string, caller: string, label: string): string => {
    const a = cpu.get(`${target}|${caller}|${label}`);
    const b = cpu.get(`${floor}|anonymous|${label}`);
    if (a === undefined || b === undefined) return '      -';
    return median(a.map((x, i) => x - (b[i] ?? NaN)))
      .toFixed(0)
      .padStart(7);
  };
  console.log('\nCPU µs per request added over the floor of the same server (median of the rounds)\n');
  console.log(['added'.padEnd(58), 'conns'.padEnd(6), ' cpu µs'].join(''));
  for (const label of labels) {
    console.log(
      [
        `Express (Express floor − floor)`.padEnd(58),
        label.padEnd(6),
        over(EXPRESS_FLOOR, FLOOR, 'anonymous', label),
      ].join(''),
    );
    for (const caller of ['anonymous', 'keyed']) {
      for (const t of targets) {
        if (t.key === null) continue;
        const floor = t.name.startsWith(LIBRARY) ? EXPRESS_FLOOR : FLOOR;
        const name = `${t.name} ${caller} − ${floor === FLOOR ? 'floor' : 'Express floor'}`;
        console.log([name.padEnd(58), label.padEnd(6), over(t.name, floor, caller, label)].join(''));
      }
    }
  }
}

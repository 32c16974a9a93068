/**
 * `npm run bench:library`: geogate used as a library (an Express app with the middleware, bench/run/library-app.ts;
 * and the middleware as the listener of Node's own server: the library without a framework) beside the standalone
 * gateway process, the floor (a bare Node proxy of the same call, bench/lib/bare-proxy.ts) and nginx (Debian's, one
 * worker), all in front of one backend, with wrk. Per round and target: 32 connections (wrk -t2
 * -c32) then one (wrk -t1 -c1); anonymous calls and keyed calls (a seeded key, embedded store, free allowance large
 * enough never to bill). Prints requests/s, p50/p99 and the CPU µs per request of the target's process tree.
 * Env: BENCH_SECONDS (default 5) per window, BENCH_WARMUP_SECONDS (default 2), BENCH_ROUNDS (default 2).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load, MANY, ONE, type Result, type Shape } from '../lib/load';
import { startNginx } from '../lib/nginx';
import { PATH } from '../lib/scenarios';
import { BENCH_PEPPER, seedStore } from '../lib/seed';
import { runBench } from '../lib/services';
import { start, type Proc } from '../lib/spawn';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const WARMUP = Number(process.env['BENCH_WARMUP_SECONDS'] ?? 2);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);

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
    const proc = await start(program, ['--config', configFile(dir, name, backend.url, store), ...args]);
    return { proc, key: seeded.keys[0] as string };
  };
  const floor = await start('dist/bench/lib/bare-proxy.js', ['--backend', backend.url]);
  const nginx = await startNginx(backend.url);
  const standalone = await geogate('standalone', 'dist/gateway/main.js');
  const library = await geogate('library', 'dist/bench/run/library-app.js', ['--server', 'express']);
  const bare = await geogate('library-node', 'dist/bench/run/library-app.js', ['--server', 'node']);
  const targets: Target[] = [
    { name: 'floor (bare proxy)', url: floor.url + PATH, pid: pid(floor), key: null },
    { name: 'nginx', url: nginx.url + PATH, pid: nginx.child.pid, key: null },
    {
      name: 'geogate standalone',
      url: standalone.proc.url + PATH,
      pid: pid(standalone.proc),
      key: standalone.key,
    },
    { name: 'geogate library (node http)', url: bare.proc.url + PATH, pid: pid(bare.proc), key: bare.key },
    {
      name: 'geogate library (express)',
      url: `${library.proc.url}/geo${PATH}`,
      pid: pid(library.proc),
      key: library.key,
    },
  ];
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
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}`);
    for (const caller of ['anonymous', 'keyed'] as const) {
      for (const [label, shape] of shapes) {
        for (const t of targets) {
          if (t.key === null && caller === 'keyed') continue;
          const headers = caller === 'keyed' ? keyOf(t) : {};
          const name = t.key === null ? t.name : `${t.name} ${caller}`;
          console.log(row(name, label, await load(t.url, [t.pid], headers, SECONDS, shape)));
        }
      }
    }
  }
});

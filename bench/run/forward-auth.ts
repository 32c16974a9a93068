/**
 * `npm run bench:forward-auth` (D37, D38): what forward auth costs. In alternating rounds, one saturation window
 * (wrk -t2 -c32) and one fixed-rate window (hey, BENCH_RATE, default 1,000 req/s) each for: the floor (a bare Node
 * proxy, bench/lib/bare-proxy.ts), Debian's nginx as a plain reverse proxy (bench/lib/nginx.ts), geogate standalone
 * (its main listener), and nginx with `auth_request` asking geogate's forward-auth listener (the configuration of
 * docs/forward-auth.md, forward-auth-nginx.ts) before proxying to the same backend. One gateway process serves both
 * geogate rows (embedded store, rule set A, anonymous callers with an allowance that never runs out, the default
 * release window). CPU µs per request is the sum over the row's process trees (nginx and the gateway for the
 * forward-auth row, each tree's share in the round lines), the backend's apart. Env: BENCH_SECONDS (default 5),
 * BENCH_ROUNDS (default 2), BENCH_RATE (default 1000; 0 leaves the fixed-rate windows out), BENCH_ONLY (a regular
 * expression on the geogate rows' names), BENCH_NODE_ARGS (extra node options for the gateway, e.g. "--cpu-prof
 * --cpu-prof-dir=/tmp/prof").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fixedRate, load, MANY, type Result } from '../lib/load';
import { startNginx } from '../lib/nginx';
import { BENCH_PEPPER } from '../lib/seed';
import { freePort, onCleanup, runBench } from '../lib/services';
import { startAuthNginx, waitPort } from '../lib/auth-nginx';
import { start, stop } from '../lib/spawn';
import { ensureDebian, HEY, WRK } from '../lib/tools';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const RATE = Number(process.env['BENCH_RATE'] ?? 1_000);
const PATH = '/v1/reverse?lat=48.8584&lon=2.2945';
const ONLY = process.env['BENCH_ONLY'] ? new RegExp(process.env['BENCH_ONLY']) : null;
const NODE_ARGS = (process.env['BENCH_NODE_ARGS'] ?? '').split(/\s+/).filter((a) => a !== '');

/** One row of the table: where to send the load, and which process trees' CPU it costs. */
interface Row {
  name: string;
  url: string;
  pids: (number | undefined)[];
  sat: Result[];
  fixed: Result[];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
/** CPU µs per request over every measured tree of the row. */
const perRequest = (r: Result): number => (r.cpuMs.reduce((a, b) => a + b, 0) * 1000) / r.requests;

/** The gateway process: main listener and forward-auth listener over one embedded store. */
async function startGateway(dir: string, backendUrl: string, faPort: number) {
  const file = path.join(dir, 'gateway.yaml');
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: bench-admin-token-0123456 }',
      `backend: { url: "${backendUrl}" }`,
      `store: { kind: embedded, path: "${path.join(dir, 'g.db')}" }`,
      `keyPepper: "${BENCH_PEPPER}"`,
      // Matched by the Host the load generators send (127.0.0.1:port), standalone and through nginx ($host).
      'hosts: [{ name: "127.0.0.1", adapter: native }]',
      'limits: { freePerDay: 1000000000 }',
      'trustProxy: ["127.0.0.1/32"]',
      'log: { level: warn }',
      'drain: { delayMs: 0 }',
      `forwardAuth: { listen: { host: 127.0.0.1, port: ${faPort} } }`,
    ].join('\n'),
  );
  const gw = await start('dist/gateway/main.js', ['--config', file], NODE_ARGS);
  onCleanup(() => stop(gw));
  await waitPort(faPort);
  return gw;
}

async function run(): Promise<void> {
  ensureDebian(WRK, 'wrk');
  if (RATE > 0) ensureDebian(HEY, 'hey');
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-bench-fa-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const backend = await start('dist/backend/main.js', ['--port', '0']);
  onCleanup(() => stop(backend));
  const floor = await start('dist/bench/lib/bare-proxy.js', [
    '--server',
    'node',
    '--client',
    'undici',
    '--backend',
    backend.url,
  ]);
  onCleanup(() => stop(floor));
  const nginx = await startNginx(backend.url);
  const faPort = await freePort();
  const gw = await startGateway(dir, backend.url, faPort);
  const authNginx = await startAuthNginx(`http://127.0.0.1:${faPort}`, backend.url);
  onCleanup(() => authNginx.stop());
  const all: Row[] = [
    { name: 'floor (node + undici)', url: floor.url, pids: [floor.child.pid], sat: [], fixed: [] },
    { name: 'nginx (1 worker)', url: nginx.url, pids: [nginx.child.pid], sat: [], fixed: [] },
    { name: 'geogate standalone', url: gw.url, pids: [gw.child.pid], sat: [], fixed: [] },
    {
      name: 'nginx auth_request + geogate',
      url: authNginx.url,
      pids: [authNginx.child.pid, gw.child.pid],
      sat: [],
      fixed: [],
    },
  ];
  // The reference rows always run (the ratios need them); BENCH_ONLY picks among the geogate rows.
  const rows = all.filter((r, i) => i < 2 || ONLY === null || ONLY.test(r.name));
  const host = {};
  const loadStart = loadavg()[0] ?? NaN;
  for (const r of rows) await load(r.url + PATH, [], host, 2, MANY); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of rows) {
      const s = await load(r.url + PATH, r.pids, host, SECONDS, MANY);
      r.sat.push(s);
      let line = `  ${r.name}, round ${round + 1}: ${s.rps.toFixed(0)}/s, ${perRequest(s).toFixed(0)} µs/req`;
      if (r.pids.length > 1)
        line += ` (${s.cpuMs.map((c) => ((c * 1000) / s.requests).toFixed(0)).join(' + ')})`;
      if (RATE > 0) {
        const f = fixedRate(r.url + PATH, r.pids, host, SECONDS, RATE);
        r.fixed.push(f);
        line += `; at ${RATE}/s ${perRequest(f).toFixed(0)} µs/req`;
      }
      console.log(line);
    }
  }
  const nginxRps = median((rows[1] as Row).sat.map((s) => s.rps));
  const floorRps = median((rows[0] as Row).sat.map((s) => s.rps));
  console.log(
    `\nforward auth (GET ${PATH}, ${ROUNDS} rounds of ${SECONDS} s, wrk -t2 -c${MANY.connections}; ` +
      `load average ${loadStart.toFixed(2)} → ${(loadavg()[0] ?? NaN).toFixed(2)})`,
  );
  const fixedHead = RATE > 0 ? ` CPU µs/req at ${RATE}/s |` : '';
  console.log(
    `| path | requests/s | to nginx | to floor | p50 ms | p99 ms | CPU µs/req, saturation |${fixedHead} non-2xx |`,
  );
  console.log(`|---|---:|---:|---:|---:|---:|---:|${RATE > 0 ? '---:|' : ''}---:|`);
  for (const r of rows) {
    const rps = median(r.sat.map((s) => s.rps));
    const fixed = RATE > 0 ? ` ${median(r.fixed.map(perRequest)).toFixed(0)} |` : '';
    console.log(
      `| ${r.name} | ${rps.toFixed(0)} | ${(rps / nginxRps).toFixed(2)}× | ${(rps / floorRps).toFixed(2)}× | ` +
        `${median(r.sat.map((s) => s.p50)).toFixed(2)} | ${median(r.sat.map((s) => s.p99)).toFixed(2)} | ` +
        `${median(r.sat.map(perRequest)).toFixed(0)} |${fixed} ${r.sat.reduce((n, s) => n + s.non2xx, 0)} |`,
    );
  }
}

runBench(run);

/**
 * `npm run bench:transport` (issue 12, "what it would take"): what the HTTP transport alone costs, beside nginx, in
 * alternating rounds. Each transport is bench/lib/bare-proxy.ts with one server (Node's HTTP server, or
 * uWebSockets.js) and one client (undici, or a minimal keep-alive client); "node + undici" is the gateway's own
 * transport, the floor of bench:gateway. Per round and transport: a saturation window (wrk -t2 -c32) and a window at
 * a fixed rate (hey, BENCH_RATE, default 1,000 req/s), each with CPU µs per request of the proxy process from /proc.
 * The uws transports run only when the module named by BENCH_UWS_MODULE (default `@trufflesuite/uws-js-unofficial`)
 * can be loaded: `npm i --no-save @trufflesuite/uws-js-unofficial` first; it is not a dependency of geogate.
 * Env: BENCH_SECONDS (default 5), BENCH_ROUNDS (default 3), BENCH_RATE (default 1000).
 */
import { loadavg } from 'node:os';
import { runBench, onCleanup } from '../lib/services';
import { fixedRate, load, MANY, type Result } from '../lib/load';
import { startNginx } from '../lib/nginx';
import { start, stop, type Proc } from '../lib/spawn';
import { ensureDebian, HEY, WRK } from '../lib/tools';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const RATE = Number(process.env['BENCH_RATE'] ?? 1_000);
const PATH = '/v1/reverse?lat=48.8584&lon=2.2945';
const UWS = process.env['BENCH_UWS_MODULE'] ?? '@trufflesuite/uws-js-unofficial';

/** One proxy under test and its windows. */
interface Row {
  name: string;
  proc: Proc;
  pid: number | undefined;
  sat: Result[];
  fixed: Result[];
}

function uwsAvailable(): boolean {
  try {
    require.resolve(UWS);
    return true;
  } catch {
    return false;
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const perRequest = (r: Result): number => (Number(r.cpuMs[0]) * 1000) / r.requests;

async function run(): Promise<void> {
  ensureDebian(WRK, 'wrk');
  ensureDebian(HEY, 'hey');
  const backend = await start('dist/backend/main.js', ['--port', '0']);
  onCleanup(() => stop(backend));
  const nginx = await startNginx(backend.url);
  const rows: Row[] = [
    // nginx's CPU is its whole tree (master + worker), as in bench:gateway.
    {
      name: 'nginx (1 worker)',
      proc: { url: nginx.url, child: nginx.child },
      pid: nginx.child.pid,
      sat: [],
      fixed: [],
    },
  ];
  const servers = uwsAvailable() ? ['node', 'uws'] : ['node'];
  if (servers.length === 1) console.log(`bench: ${UWS} is not installed; the uws transports are left out`);
  for (const server of servers)
    for (const client of ['undici', 'minimal']) {
      const proc = await start('dist/bench/lib/bare-proxy.js', [
        '--server',
        server,
        '--client',
        client,
        '--backend',
        backend.url,
      ]);
      onCleanup(() => stop(proc));
      rows.push({ name: `${server} + ${client}`, proc, pid: proc.child.pid, sat: [], fixed: [] });
    }
  const loadStart = loadavg()[0] ?? NaN;
  for (const r of rows) await load(r.proc.url + PATH, [], {}, 2, MANY); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of rows) {
      r.sat.push(await load(r.proc.url + PATH, [r.pid], {}, SECONDS, MANY));
      r.fixed.push(fixedRate(r.proc.url + PATH, [r.pid], {}, SECONDS, RATE));
      const s = r.sat[round] as Result;
      const f = r.fixed[round] as Result;
      console.log(
        `  ${r.name}, round ${round + 1}: ${s.rps.toFixed(0)}/s, ${perRequest(s).toFixed(0)} µs/req; ` +
          `at ${RATE}/s ${perRequest(f).toFixed(0)} µs/req`,
      );
    }
  }
  const nginxRps = median((rows[0] as Row).sat.map((s) => s.rps));
  console.log(
    `\ntransport floors (GET ${PATH}, ${ROUNDS} rounds of ${SECONDS} s, wrk -t2 -c${MANY.connections}; ` +
      `load average ${loadStart.toFixed(2)} → ${(loadavg()[0] ?? NaN).toFixed(2)})`,
  );
  console.log(
    `| transport | requests/s | ratio to nginx | CPU µs/req, saturation | CPU µs/req at ${RATE}/s | non-2xx |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const rps = median(r.sat.map((s) => s.rps));
    console.log(
      `| ${r.name} | ${rps.toFixed(0)} | ${(rps / nginxRps).toFixed(2)}× | ${median(r.sat.map(perRequest)).toFixed(0)} | ` +
        `${median(r.fixed.map(perRequest)).toFixed(0)} | ${r.sat.reduce((n, s) => n + s.non2xx, 0)} |`,
    );
  }
}

runBench(run);

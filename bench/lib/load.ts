/**
 * Load generation for the gateway benchmark: Debian's wrk (installed by the bench when missing, bench/lib/tools.ts),
 * else an in-Node keep-alive generator; plus the CPU time of the measured process trees from /proc.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { cpuBetween, treeCpu, treeRssMb } from './procs';
import { HEY, WRK } from './tools';

export const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);

/** Whether wrk is there (checked per run: the bench may have just installed it). */
export function haveWrk(): boolean {
  return existsSync(WRK);
}

/**
 * How to load: connections and wrk threads, an optional wrk Lua script (e.g. rotating keys or paths) and, for the
 * in-Node generator, the paths that script would ask (each request takes the next; default: the URL's own).
 */
export interface Shape {
  connections: number;
  threads: number;
  script?: string;
  paths?: () => string;
}

/** The 32-connection shape (wrk -t2 -c32) and the one-connection shape (wrk -t1 -c1). */
export const MANY: Shape = { connections: CONNECTIONS, threads: 2 };
export const ONE: Shape = { connections: 1, threads: 1 };

/** One load run's figures. */
export interface Result {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests answered during the run (wrk's count). */
  requests: number;
  /** CPU ms used by each measured process tree during the run (Linux /proc; NaN elsewhere). */
  cpuMs: number[];
  /** Resident memory (MB) of the first measured process tree at the end of the run (NaN when not measured). */
  rssMb: number;
}

/** wrk's latency figure ("1.23ms", "850.00us", "1.02s") in ms. */
function ms(text: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(text);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

/** Load with wrk for `seconds`. */
function wrk(url: string, headers: Record<string, string>, seconds: number, shape: Shape): Result {
  const hs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const script = shape.script !== undefined ? ['-s', shape.script] : [];
  const args = [
    `-t${shape.threads}`,
    `-c${shape.connections}`,
    `-d${seconds}s`,
    '--latency',
    ...script,
    ...hs,
    url,
  ];
  const r = spawnSync(WRK, args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  const out = r.stdout ?? '';
  if (!/requests in/.test(out)) throw new Error(`wrk failed: ${r.stderr ?? ''}${out}`);
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1]),
    cpuMs: [],
    rssMb: NaN,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: ms(/ 50%\s+(\S+)/.exec(out)?.[1] ?? ''),
    p99: ms(/ 99%\s+(\S+)/.exec(out)?.[1] ?? ''),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

/** Load with an in-Node keep-alive generator (when wrk is absent). */
async function nodeLoad(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  shape: Shape,
): Promise<Result> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: shape.connections });
  const base = new URL(url);
  const next = shape.paths ?? (() => base.pathname + base.search);
  const lat: number[] = [];
  let non2xx = 0;
  const end = Date.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const t = process.hrtime.bigint();
      http
        .get(base.origin + next(), { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => {
            lat.push(Number(process.hrtime.bigint() - t) / 1e6);
            if ((res.statusCode ?? 0) >= 300) non2xx++;
            resolve();
          });
        })
        .on('error', reject);
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: shape.connections }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  agent.destroy();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN;
  const rps = lat.length / ((Date.now() - started) / 1000);
  return { rps, p50: q(0.5), p99: q(0.99), non2xx, requests: lat.length, cpuMs: [], rssMb: NaN };
}

/** Workers of the fixed-rate load (hey -c), each sending rate / FIXED_WORKERS requests per second. */
const FIXED_WORKERS = 8;

/**
 * Load `url` at a fixed `rate` (requests/s, hey -q per worker) for `seconds`, recording the CPU of the given process
 * trees meanwhile. At saturation the CPU per request depends on the throughput reached (fewer requests per event-loop
 * turn: more system calls and commits per request), so it moves with the machine's other load; at one fixed rate
 * every build and proxy does the same work per second, which makes this the steadier figure for before/after
 * comparisons (issue 12, docs/bench-history/2026-11-26-issue-12-sessions-1-3.md). Latency figures are hey's, in ms.
 */
export function fixedRate(
  url: string,
  pids: (number | undefined)[],
  headers: Record<string, string>,
  seconds: number,
  rate: number,
): Result {
  const before = pids.map(treeCpu);
  const hs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const perWorker = Math.max(1, Math.round(rate / FIXED_WORKERS));
  const args = ['-z', `${seconds}s`, '-c', String(FIXED_WORKERS), '-q', String(perWorker), ...hs, url];
  const r = spawnSync(HEY, args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  const cpuMs = pids.map((pid, i) => cpuBetween(before[i] ?? new Map(), treeCpu(pid)));
  const out = r.stdout ?? '';
  const codes = [...out.matchAll(/\[(\d{3})\]\s+(\d+) responses/g)].map((m) => [Number(m[1]), Number(m[2])]);
  if (codes.length === 0) throw new Error(`hey failed: ${r.stderr ?? ''}${out}`);
  const requests = codes.reduce((n, [, c]) => n + (c as number), 0);
  const secs = (p: string) => Number(new RegExp(`${p}% in ([\\d.]+) secs`).exec(out)?.[1]) * 1000;
  return {
    requests,
    cpuMs,
    rssMb: treeRssMb(pids[0]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: secs('50'),
    p99: secs('99'),
    non2xx: codes.reduce((n, [code, c]) => n + ((code as number) >= 300 ? (c as number) : 0), 0),
  };
}

/** Load `url` for `seconds`, recording the CPU the given process trees spend meanwhile. */
export async function load(
  url: string,
  pids: (number | undefined)[],
  headers: Record<string, string>,
  seconds: number,
  shape: Shape = MANY,
): Promise<Result> {
  const before = pids.map(treeCpu);
  const r = haveWrk() ? wrk(url, headers, seconds, shape) : await nodeLoad(url, headers, seconds, shape);
  r.cpuMs = pids.map((pid, i) => cpuBetween(before[i] ?? new Map(), treeCpu(pid)));
  r.rssMb = treeRssMb(pids[0]);
  return r;
}

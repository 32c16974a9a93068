/**
 * `npm run bench:gateway`: requests/s and p50/p99 latency through the gateway (anonymous, and keyed billed) next to
 * the backend alone, measured in one run on loopback. Backend and gateway run as their own processes (compiled
 * `dist/`), on a fresh embedded store. Load: /usr/bin/wrk when present, else an in-Node keep-alive generator.
 * Env: BENCH_SECONDS (default 10), BENCH_CONNECTIONS (default 32).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../gateway/core/clock';
import { generateKey, hashKey, keyPrefix } from '../gateway/core/keys';
import { createStore } from '../gateway/store';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const PEPPER = 'bench-pepper-0123456789abcdef';
const PATH = '/v1/reverse?lat=48.8584&lon=2.2945';

/** The folder holding package.json. */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

interface Proc {
  url: string;
  child: ChildProcess;
}

/** Spawn a compiled entry point and wait for its first "listening on URL". */
function start(script: string, args: string[]): Promise<Proc> {
  const child = spawn(process.execPath, [path.join(repoRoot(), script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

/** Stop a child and wait. */
function stop(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null) return resolve();
    p.child.once('exit', () => resolve());
    p.child.kill('SIGTERM');
  });
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests answered during the run. */
  requests: number;
  /** CPU ms used by each measured process during the run (Linux /proc; NaN elsewhere). */
  cpuMs: number[];
}

/** CPU time (user + system) of a process in ms from /proc/<pid>/stat; NaN when unavailable. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** wrk's latency figure ("1.23ms", "850.00us", "1.02s") in ms. */
function ms(text: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(text);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

/** Load with wrk. */
function wrk(url: string, headers: Record<string, string>): Result {
  const hs = Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const r = spawnSync('/usr/bin/wrk', ['-t2', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', ...hs, url], {
    encoding: 'utf8',
  });
  const out = r.stdout;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1]),
    cpuMs: [],
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
    p50: ms(/ 50%\s+(\S+)/.exec(out)?.[1] ?? ''),
    p99: ms(/ 99%\s+(\S+)/.exec(out)?.[1] ?? ''),
    non2xx,
  };
}

/** Load with an in-Node keep-alive generator (when wrk is absent). */
async function nodeLoad(url: string, headers: Record<string, string>): Promise<Result> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const lat: number[] = [];
  let non2xx = 0;
  const end = Date.now() + SECONDS * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const t = process.hrtime.bigint();
      http
        .get(url, { agent, headers }, (res) => {
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
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  agent.destroy();
  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN;
  const rps = lat.length / ((Date.now() - started) / 1000);
  return { rps, p50: q(0.5), p99: q(0.99), non2xx, requests: lat.length, cpuMs: [] };
}

/** Measure one URL, and the CPU the given processes spend meanwhile. */
async function measure(url: string, procs: Proc[], headers: Record<string, string> = {}): Promise<Result> {
  const before = procs.map((p) => cpuMs(p.child.pid));
  const r = existsSync('/usr/bin/wrk') ? wrk(url, headers) : await nodeLoad(url, headers);
  r.cpuMs = procs.map((p, i) => cpuMs(p.child.pid) - (before[i] ?? NaN));
  return r;
}

/** CPU µs per request of each process, e.g. "gateway 310 + backend 80". */
function cpuPerRequest(r: Result, names: string[]): string {
  return r.cpuMs.map((ms, i) => `${names[i]} ${((ms * 1000) / r.requests).toFixed(0)}`).join(' + ');
}

/** A gateway process with its own config and store. */
async function gateway(dir: string, name: string, backendUrl: string, freePerDay: number): Promise<Proc> {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: bench-admin-token-0123456 }',
      `backend: { url: "${backendUrl}" }`,
      `store: { kind: embedded, path: "${path.join(dir, 'geogate.db')}" }`,
      `keyPepper: "${PEPPER}"`,
      'hosts: [{ name: localhost, adapter: native }]',
      `limits: { freePerDay: ${freePerDay} }`,
      'log: { level: warn }',
    ].join('\n'),
  );
  return start('dist/gateway/main.js', ['--config', file]);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'geogate-bench-'));
  const store = await createStore(
    { kind: 'embedded', path: path.join(dir, 'geogate.db') },
    { clock: systemClock },
  );
  const acc = await store.createAccount({ email: 'bench@example.com', name: 'Bench' }, Date.now());
  await store.credit(acc.id, 1_000_000_000, 'bench', Date.now());
  const key = generateKey();
  await store.createKey(
    { accountId: acc.id, hash: hashKey(key, PEPPER), prefix: keyPrefix(key), kind: 'payg' },
    Date.now(),
  );
  await store.close();

  const loadStart = loadavg()[0]?.toFixed(1) ?? '?';
  const backend = await start('dist/backend/main.js', ['--port', '0']);
  const rows: [string, Result, string[]][] = [];
  try {
    const alone = await measure(backend.url + PATH.replace('/v1', ''), [backend]);
    rows.push(['backend alone', alone, ['backend']]);
    const anon = await gateway(dir, 'anon', backend.url, 1_000_000_000);
    rows.push([
      'gateway, anonymous',
      await measure(anon.url + PATH, [anon, backend]),
      ['gateway', 'backend'],
    ]);
    await stop(anon);
    const billed = await gateway(dir, 'billed', backend.url, 0);
    const keyed = await measure(billed.url + PATH, [billed, backend], { 'X-API-Key': key });
    rows.push(['gateway, key, billed', keyed, ['gateway', 'backend']]);
    await stop(billed);
  } finally {
    await stop(backend);
  }
  const tool = existsSync('/usr/bin/wrk')
    ? `wrk -t2 -c${CONNECTIONS}`
    : `in-Node generator, ${CONNECTIONS} connections`;
  console.log(`\ngeogate gateway benchmark: GET ${PATH}, ${SECONDS} s each, ${tool}, loopback`);
  const load = loadavg()[0]?.toFixed(1) ?? '?';
  console.log(`machine: ${cpus().length} CPUs, load average ${loadStart} at start, ${load} at end\n`);
  console.log('| scenario | requests/s | p50 ms | p99 ms | non-2xx | CPU µs per request |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [name, r, names] of rows) {
    const cells = [
      r.rps.toFixed(0),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      String(r.non2xx),
      cpuPerRequest(r, names),
    ];
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  const store2 = await createStore(
    { kind: 'embedded', path: path.join(dir, 'geogate.db') },
    { clock: systemClock },
  );
  const charged = (await store2.ledger(acc.id, 1)).length;
  await store2.close();
  if (charged === 0) console.log('warning: the billed run charged nothing');
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

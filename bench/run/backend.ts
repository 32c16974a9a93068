/**
 * `npm run bench:backend [-- --baseline DIR]`: in-process lookups/s (reverse: uniform and near-place points; IPv4:
 * random public addresses; search: a mix of exact names, case/diacritic variants, prefixes and misses, a third with a
 * country filter) side by side with geokdbush on the reverse query sets, start-up time and resident memory of the
 * real process (and, with --baseline, of another checkout's built backend, interleaved in the same run), and HTTP
 * requests/s of the service (wrk when installed at /usr/bin/wrk, else an in-Node generator).
 * Loopback only, bounded in time. Targets (one core): ≥150k reverse/s, ≥150k IPv4/s, ≥50k searches/s, start-up
 * ≤500 ms, RSS ≤250 MB.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../backend/paths';
import type { PackedStrings } from '../../backend/geodata/packed-strings';
import { normaliseName } from '../../backend/search/normalise';
import { defaultDataSource, loadBackendData, type BackendData } from '../../backend/service';
import { runBench, track } from '../lib/services';
import { haveWrk, load, type Result } from '../lib/load';

/** Seeded PRNG (LCG). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Points as parallel arrays. */
export interface PointSet {
  lat: Float64Array;
  lon: Float64Array;
}

/** Uniform over lat −60…75 and all longitudes (mostly sea: the worst case for a nearest search). */
export function uniformPoints(n: number, seed: number): PointSet {
  const r = rng(seed);
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lat[i] = -60 + 135 * r();
    lon[i] = -180 + 360 * r();
  }
  return { lat, lon };
}

/** A random place ± 0.2° (clamped to the valid range). */
export function nearPoints(n: number, seed: number, placeLat: Int32Array, placeLon: Int32Array): PointSet {
  const r = rng(seed);
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = Math.floor(r() * placeLat.length);
    lat[i] = Math.max(-90, Math.min(90, (placeLat[p] as number) / 1e5 + 0.4 * r() - 0.2));
    let x = (placeLon[p] as number) / 1e5 + 0.4 * r() - 0.2;
    if (x > 180) x -= 360;
    if (x < -180) x += 360;
    lon[i] = x;
  }
  return { lat, lon };
}

/** True for addresses outside the special-purpose ranges (RFC 6890 and multicast/reserved). */
export function isPublicIPv4(v: number): boolean {
  const a = v >>> 24;
  const b = (v >>> 16) & 255;
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
  if (a === 100 && b >= 64 && b < 128) return false;
  if (a === 169 && b === 254) return false;
  if (a === 172 && b >= 16 && b < 32) return false;
  if (a === 192 && (b === 168 || b === 0)) return false;
  if (a === 198 && (b === 18 || b === 19)) return false;
  return true;
}

/** Random public IPv4 addresses as text and uint32. */
export function publicAddresses(n: number, seed: number): { text: string[]; value: Uint32Array } {
  const r = rng(seed);
  const text: string[] = [];
  const value = new Uint32Array(n);
  while (text.length < n) {
    const v = Math.floor(r() * 2 ** 32);
    if (!isPublicIPv4(v)) continue;
    value[text.length] = v;
    text.push(`${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`);
  }
  return { text, value };
}

/** Search queries: the text and its country filter (null: none). */
export interface SearchMix {
  text: string[];
  countries: (string[] | null)[];
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * A realistic search mix over the place names: 30 % exact names as stored, 15 % upper- or lower-cased, 15 % with
 * diacritics stripped, 20 % prefixes (40-80 % of the name, at least 3 characters), 20 % random letter strings
 * (nearly all misses); a third of the queries filter by a country (the place's own for the name-based ones).
 */
export function searchMix(
  n: number,
  seed: number,
  names: PackedStrings,
  country: Uint16Array,
  codeOf: (c: number) => string | null,
): SearchMix {
  const r = rng(seed);
  const text: string[] = [];
  const countries: (string[] | null)[] = [];
  while (text.length < n) {
    const p = Math.floor(r() * names.length);
    const name = names.get(p) ?? '';
    const kind = r();
    let q: string;
    if (kind < 0.3) q = name;
    else if (kind < 0.45) q = r() < 0.5 ? name.toUpperCase() : name.toLowerCase();
    else if (kind < 0.6) q = name.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
    else if (kind < 0.8) q = name.slice(0, Math.max(3, Math.round(name.length * (0.4 + 0.4 * r()))));
    else q = Array.from({ length: 6 + Math.floor(r() * 5) }, () => LETTERS[Math.floor(r() * 26)]).join('');
    if (normaliseName(q) === '') continue;
    const code = codeOf(country[p] as number);
    text.push(q);
    countries.push(r() < 1 / 3 && code !== null ? [code] : null);
  }
  return { text, countries };
}

/** What an HTTP load run asks for. */
type LoadKind = 'reverse' | 'ipv4' | 'healthz' | 'search';

/** Paths of /search requests for the HTTP load (set from the search mix before the load runs). */
let searchPaths: string[] = [];

/** A wrk Lua script that asks random points, random public addresses, the search mix or /healthz. */
function wrkScript(kind: LoadKind): string {
  if (kind === 'healthz') return 'request = function() return wrk.format("GET", "/healthz") end\n';
  if (kind === 'search') {
    return [
      'local paths = {',
      ...searchPaths.map((p) => `  "${p}",`),
      '}',
      'local i = 0',
      'request = function()',
      '  i = i % #paths + 1',
      '  return wrk.format("GET", paths[i])',
      'end',
      '',
    ].join('\n');
  }
  if (kind === 'reverse') {
    return [
      'math.randomseed(42)',
      'request = function()',
      '  local lat = string.format("%.5f", -60 + 135 * math.random())',
      '  local lon = string.format("%.5f", -180 + 360 * math.random())',
      '  return wrk.format("GET", "/reverse?lat=" .. lat .. "&lon=" .. lon)',
      'end',
      '',
    ].join('\n');
  }
  return [
    'math.randomseed(42)',
    'request = function()',
    '  local a = math.random(1, 223)',
    '  while a == 10 or a == 127 or a == 100 or a == 172 or a == 192 or a == 169 do a = math.random(1, 223) end',
    '  local ip = a .. "." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255)',
    '  return wrk.format("GET", "/ipv4?ip=" .. ip)',
    'end',
    '',
  ].join('\n');
}

/** Loads the service (the runner's load: wrk -t1 with the kind's script, else the in-Node generator over `paths`). */
async function httpLoad(
  url: string,
  kind: LoadKind,
  seconds: number,
  connections: number,
  paths: () => string,
): Promise<Result> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geogate-bench-'));
  const script = path.join(dir, `${kind}.lua`);
  fs.writeFileSync(script, wrkScript(kind));
  try {
    return await load(url, [], {}, seconds, { connections, threads: 1, script, paths });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Lookups/s by wall clock and by process CPU time (the latter is less disturbed by other load on the machine). */
interface Rate {
  wall: number;
  cpu: number;
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Lookups per second of fn over n queries: 20k warm-up, then the median of 3 timed passes. */
function rate(n: number, fn: (i: number) => number): Rate {
  let sink = 0;
  for (let i = 0; i < 20_000; i++) sink += fn(i % n);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    const c = cpuSeconds();
    for (let i = 0; i < n; i++) sink += fn(i);
    cpu.push(n / (cpuSeconds() - c));
    wall.push(n / ((performance.now() - t) / 1000));
  }
  if (sink === 42.4242) console.log('');
  const median = (xs: number[]): number => Math.round(xs.sort((a, b) => a - b)[1] as number);
  return { wall: median(wall), cpu: median(cpu) };
}

function fmt(r: Rate | null): string {
  return r ? `${r.wall.toLocaleString('en-US')} | ${r.cpu.toLocaleString('en-US')}` : '— | —';
}

interface KdbushIndex {
  add(x: number, y: number): number;
  finish(): void;
}
type Around = (index: KdbushIndex, lng: number, lat: number, max?: number) => number[];

/** geokdbush and kdbush are ESM; Node ≥ 20.19 can require() them. */
function loadGeokdbush(): { index: KdbushIndex; around: Around } | null {
  try {
    // kdbush/geokdbush are ESM-only: Node >= 20.19 loads them with require(esm).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const KDBush = (require('kdbush') as { default: new (n: number) => KdbushIndex }).default;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { around } = require('geokdbush') as { around: Around };
    return { index: buildKdbush(KDBush), around };
  } catch (err) {
    console.log(`geokdbush not loadable here (${(err as Error).message}); skipping the comparison`);
    return null;
  }
}

let places: { lat: Int32Array; lon: Int32Array } | null = null;

function buildKdbush(KDBush: new (n: number) => KdbushIndex): KdbushIndex {
  const p = places as { lat: Int32Array; lon: Int32Array };
  const index = new KDBush(p.lat.length);
  for (let i = 0; i < p.lat.length; i++) index.add((p.lon[i] as number) / 1e5, (p.lat[i] as number) / 1e5);
  index.finish();
  return index;
}

function inProcess(data: BackendData): void {
  const N = 200_000;
  const geodata = (
    data.reverse as unknown as {
      data: {
        places: { lat: Int32Array; lon: Int32Array; country: Uint16Array };
        strings: { names: PackedStrings };
      };
    }
  ).data;
  places = geodata.places;
  const uniform = uniformPoints(N, 1);
  const near = nearPoints(N, 2, geodata.places.lat, geodata.places.lon);
  const ips = publicAddresses(N, 3);
  const rows: [string, Rate, Rate | null][] = [];
  for (const [name, set] of [
    ['uniform', uniform],
    ['near places', near],
  ] as const) {
    const full = rate(
      N,
      (i) => data.reverse.lookup(set.lat[i] as number, set.lon[i] as number).displayName.length,
    );
    rows.push([`reverse, whole record, ${name}`, full, null]);
  }
  const geo = loadGeokdbush();
  for (const [name, set] of [
    ['uniform', uniform],
    ['near places', near],
  ] as const) {
    const ours = rate(N, (i) => data.reverse.nearest(set.lat[i] as number, set.lon[i] as number, -1));
    const theirs = geo
      ? rate(N / 4, (i) => geo.around(geo.index, set.lon[i] as number, set.lat[i] as number, 1)[0] as number)
      : null;
    rows.push([`nearest place only (global index), ${name}`, ours, theirs]);
  }
  const ip = rate(N, (i) => data.ip.lookup(ips.text[i] as string, ips.value[i] as number).attribution.length);
  rows.push(['IPv4, whole record, random public', ip, null]);
  const mix = searchMix(N, 4, geodata.strings.names, geodata.places.country, (c) =>
    data.reverse.countryCodeOf(c),
  );
  let found = 0;
  let hits = 0;
  const search = (i: number): number => {
    const q = mix.text[i] as string;
    const codes = mix.countries[i] as string[] | null;
    const countries = codes ? { codes, index: codes.map((c) => data.search.countryIndexOf(c)) } : null;
    const answer = data.search.search({ q, key: normaliseName(q), countries, limit: 10 });
    return answer.results.length;
  };
  for (let i = 0; i < N; i++) {
    const k = search(i);
    found += k;
    if (k > 0) hits++;
  }
  rows.push(['search, whole records (limit 10), realistic mix', rate(N, search), null]);
  searchPaths = mix.text.slice(0, 2000).map((q, i) => {
    const codes = mix.countries[i];
    return `/search?q=${encodeURIComponent(q)}${codes ? `&countrycodes=${codes.join(',')}` : ''}`;
  });
  console.log('\n## In-process lookups/s (single thread, median of 3 passes after a 20k warm-up)\n');
  console.log(
    '| query set | geogate, wall | geogate, per CPU-second | geokdbush, wall | geokdbush, per CPU-second |',
  );
  console.log('|---|---|---|---|---|');
  for (const [name, ours, theirs] of rows) console.log(`| ${name} | ${fmt(ours)} | ${fmt(theirs)} |`);
  console.log(
    `\nSearch mix: ${N.toLocaleString('en-US')} queries, ${((100 * hits) / N).toFixed(1)} % with at least one ` +
      `result, ${(found / N).toFixed(2)} results per query on average.`,
  );
}

/** User + system CPU milliseconds a process has used (Linux /proc, CLK_TCK = 100). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** VmRSS of a process in MB (Linux /proc). */
function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

interface Started {
  url: string;
  pid: number;
  readyMs: number;
  loadMs: number;
  cpuMs: number;
  stop(): Promise<void>;
}

/** Spawns the real backend and times spawn → "listening on" line. */
function spawnBackend(main: string): Promise<Started> {
  const t = performance.now();
  const child = spawn(process.execPath, [main, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  track(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`backend exited early (${code})`)));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+) \(data loaded in (\d+) ms\)/.exec(out);
      if (!m) return;
      child.removeAllListeners('exit');
      resolve({
        url: m[1] as string,
        pid: child.pid as number,
        readyMs: Math.round(performance.now() - t),
        loadMs: Number(m[2]),
        cpuMs: cpuMs(child.pid as number),
        stop: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

function nodeBaselineMs(): number {
  const t = performance.now();
  execFileSync(process.execPath, ['-e', '0']);
  return Math.round(performance.now() - t);
}

/** One build's start-up runs: spawn → ready, data load, CPU until ready, and idle RSS of each run. */
interface StartupRuns {
  label: string;
  main: string;
  runs: (Started & { rss: number })[];
}

function describeStartup(s: StartupRuns): void {
  const ready = s.runs.map((r) => r.readyMs).sort((a, b) => a - b);
  const rss = s.runs.map((r) => r.rss);
  console.log(
    `| ${s.label} | ${ready.join(', ')} (median ${ready[1]}) | ${s.runs.map((r) => r.loadMs).join(', ')} | ` +
      `${s.runs.map((r) => r.cpuMs).join(', ')} | ${rss.join(', ')} (median ${[...rss].sort((a, b) => a - b)[1]}) |`,
  );
}

async function processFigures(main: string, baseline: string | null): Promise<void> {
  const builds: StartupRuns[] = [{ label: 'this build', main, runs: [] }];
  if (baseline) builds.unshift({ label: `baseline (${baseline})`, main: baseline, runs: [] });
  let live: Started | null = null;
  // Interleaved (baseline, this build, baseline, ...) so both see the same load on the machine.
  for (let i = 0; i < 3; i++) {
    for (const b of builds) {
      const s = await spawnBackend(b.main);
      b.runs.push({ ...s, rss: rssMb(s.pid) });
      if (i === 2 && b.main === main) live = s;
      else await s.stop();
    }
  }
  console.log('\n## Process start-up and memory\n');
  console.log(
    '| build | spawn → "listening on" line, ms | data load inside, ms | CPU until ready, ms | RSS idle, MB |',
  );
  console.log('|---|---|---|---|---|');
  for (const b of builds) describeStartup(b);
  console.log(`\n- bare \`node -e 0\` on this machine: ${nodeBaselineMs()} ms`);
  if (!live) throw new Error('no live backend');
  const rnd = rng(5);
  const ips = publicAddresses(10_000, 6);
  const reversePath = (): string =>
    `/reverse?lat=${(-60 + 135 * rnd()).toFixed(5)}&lon=${(-180 + 360 * rnd()).toFixed(5)}`;
  const ipPath = (): string => `/ipv4?ip=${ips.text[Math.floor(rnd() * ips.text.length)] as string}`;
  console.log('\n## HTTP requests/s of the service (loopback, backend on one core)\n');
  console.log('| endpoint | tool | requests/s | non-2xx | p50 | p99 |');
  console.log('|---|---|---|---|---|---|');
  let next = 0;
  const searchPath = (): string => searchPaths[next++ % searchPaths.length] as string;
  for (const [kind, paths] of [
    ['reverse', reversePath],
    ['ipv4', ipPath],
    ['search', searchPath],
    ['healthz', () => '/healthz'],
  ] as const) {
    const res = await httpLoad(live.url, kind, 5, 32, paths);
    const tool = haveWrk() ? 'wrk -t1 -c32 -d5s' : 'in-Node keep-alive, 32 connections, 5 s';
    const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}ms` : 'n/a');
    console.log(
      `| /${kind} (random) | ${tool} | ${Math.round(res.rps).toLocaleString('en-US')} | ${res.non2xx} | ${ms(res.p50)} | ${ms(res.p99)} |`,
    );
  }
  console.log(`\n- RSS after the HTTP load: ${rssMb(live.pid)} MB`);
  await live.stop();
}

async function main(): Promise<void> {
  const root = repoRoot();
  const mainJs = path.join(root, 'dist', 'backend', 'main.js');
  if (!fs.existsSync(mainJs)) throw new Error('dist/backend/main.js missing: run `npm run build`');
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `# backend benchmark — ${new Date().toISOString()}, Node ${process.version}, ` +
      `${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ''}, load average ${load}`,
  );
  const t = performance.now();
  const data = loadBackendData(defaultDataSource());
  console.log(`\nin-process data load: ${Math.round(performance.now() - t)} ms`);
  inProcess(data);
  const at = process.argv.indexOf('--baseline');
  const baseline = at > 0 ? path.resolve(process.argv[at + 1] ?? '.', 'dist', 'backend', 'main.js') : null;
  if (baseline && !fs.existsSync(baseline))
    throw new Error(`--baseline: ${baseline} missing (build it first)`);
  await processFigures(mainJs, baseline);
}

runBench(main);

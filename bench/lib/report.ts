/** The side-by-side report of `npm run bench:gateway`: medians over rounds, ratios to the floor and to nginx (D37). */
import type { Scenario } from './scenarios';
import type { Result } from './load';
import { insideScripts, type RedisWindow } from './redis-stats';

/** One round: nginx, the floor and geogate at 32 connections, the floor and geogate at one; the load average after. */
export interface Round {
  nginx32: Result;
  floor32: Result;
  gw32: Result;
  floor1: Result;
  gw1: Result;
  /** Fixed-rate windows (BENCH_RATE), null when off or not meaningful for the scenario. */
  floorFixed: Result | null;
  gwFixed: Result | null;
  load: number;
}

/** A scenario's rounds (and Redis's command statistics of the first 32-connection window). */
export interface Measurement {
  scenario: Scenario;
  rounds: Round[];
  redis: RedisWindow | null;
}

function median(xs: number[]): number {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** CPU µs per request of process `i` of a window. */
function us(r: Result, i: number): number {
  return ((r.cpuMs[i] ?? NaN) * 1000) / r.requests;
}

/** Redis commands the gateway sent per admitted request (round trips: not those its scripts run inside Redis). */
export function redisCallsPerAdmitted(m: Measurement): { calls: number; scripts: number } {
  const r = m.rounds[0]?.gw32;
  if (m.redis === null || !r) return { calls: NaN, scripts: NaN };
  const admitted = r.requests - r.non2xx;
  return {
    calls: (m.redis.total - insideScripts(m.redis)) / admitted,
    scripts: (m.redis.evalsha + m.redis.eval) / admitted,
  };
}

/** The figures of a measurement, medians over its rounds. */
export function figures(m: Measurement) {
  const R = m.rounds;
  const med = (f: (r: Round) => number) => median(R.map(f));
  return {
    nginxRps: med((r) => r.nginx32.rps),
    floorRps: med((r) => r.floor32.rps),
    gwRps: med((r) => r.gw32.rps),
    vsFloor: med((r) => r.gw32.rps / r.floor32.rps),
    vsNginx: med((r) => r.gw32.rps / r.nginx32.rps),
    floorVsNginx: med((r) => r.floor32.rps / r.nginx32.rps),
    floorP50: med((r) => r.floor32.p50),
    gwP50: med((r) => r.gw32.p50),
    floorP99: med((r) => r.floor32.p99),
    gwP99: med((r) => r.gw32.p99),
    p99Ratio: med((r) => r.gw32.p99 / r.floor32.p99),
    floor1P99: med((r) => r.floor1.p99),
    gw1P99: med((r) => r.gw1.p99),
    c1Diff: med((r) => r.gw1.p99 - r.floor1.p99),
    gwCpu: med((r) => us(r.gw32, 0)),
    floorCpu: med((r) => us(r.floor32, 0)),
    cpuOver: med((r) => us(r.gw32, 0) - us(r.floor32, 0)),
    backendCpu: med((r) => us(r.gw32, 1)),
    redisCpu: med((r) => us(r.gw32, 2)),
    nginxCpu: med((r) => us(r.nginx32, 0)),
    fixedCpu: med((r) => (r.gwFixed ? us(r.gwFixed, 0) : NaN)),
    fixedFloorCpu: med((r) => (r.floorFixed ? us(r.floorFixed, 0) : NaN)),
    fixedOver: med((r) => (r.gwFixed && r.floorFixed ? us(r.gwFixed, 0) - us(r.floorFixed, 0) : NaN)),
    fixedRps: med((r) => r.gwFixed?.rps ?? NaN),
    rssMb: Math.max(...R.map((r) => r.gw32.rssMb).filter((x) => Number.isFinite(x)), -Infinity),
    non2xx: R.reduce((n, r) => n + r.gw32.non2xx + r.gw1.non2xx, 0),
    load: med((r) => r.load),
  };
}

export const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');
export const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
export const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '–');
/** With its sign: "+12", "-3" (figures over the floor may be below it). */
export const signed = (n: number, digits = 0) =>
  Number.isFinite(n) ? `${n >= 0 ? '+' : ''}${n.toFixed(digits)}` : '–';

/** The side-by-side table (medians over rounds). */
export function printSummary(ms: Measurement[]): void {
  const head = [
    'scenario',
    'req/s nginx / floor / geogate',
    '**× floor**',
    '× nginx (floor × nginx)',
    'CPU µs/req geogate / floor',
    '**CPU µs over the floor** (c32; fixed rate)',
    'p99 ms c32 floor / geogate',
    '**p99 c32 × floor**',
    'p99 ms c1 floor / geogate',
    '**c1 p99 − floor ms**',
    'backend / redis / nginx µs',
    'Redis calls (scripts) per admitted',
    'RSS MB',
    'non-2xx',
    'load',
  ];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|---${'|---:'.repeat(head.length - 1)}|`);
  for (const m of ms) {
    if (m.rounds.length === 0) continue;
    const x = figures(m);
    const shared = m.scenario.store === 'shared';
    const redis = redisCallsPerAdmitted(m);
    const cells = [
      `${f0(x.nginxRps)} / ${f0(x.floorRps)} / ${f0(x.gwRps)}`,
      `**${f2(x.vsFloor)}×**`,
      `${f2(x.vsNginx)}× (${f2(x.floorVsNginx)}×)`,
      `${f0(x.gwCpu)} / ${f0(x.floorCpu)}`,
      `**${signed(x.cpuOver)}**; ${signed(x.fixedOver)}`,
      `${f2(x.floorP99)} / ${f2(x.gwP99)}`,
      `**${f2(x.p99Ratio)}×**`,
      `${f2(x.floor1P99)} / ${f2(x.gw1P99)}`,
      `**${f2(x.c1Diff)}**`,
      `${f0(x.backendCpu)} / ${shared ? f0(x.redisCpu) : '–'} / ${f0(x.nginxCpu)}`,
      shared ? `${f3(redis.calls)} (${f3(redis.scripts)})` : '–',
      f0(x.rssMb),
      String(x.non2xx),
      f2(x.load),
    ];
    console.log(`| ${m.scenario.name} | ${cells.join(' | ')} |`);
  }
  printAblations(ms);
}

/** Each ablated gateway (BENCH_ABLATE, bench/models/ablate.ts) against the full pipeline of the same build and scenario. */
function printAblations(ms: Measurement[]): void {
  const lines: string[] = [];
  for (const m of ms) {
    const cut = /^(.*) \[ablate: ([^\]]+)\]$/.exec(m.scenario.name);
    const full = cut ? ms.find((o) => o.scenario.name === cut[1] && o.rounds.length > 0) : undefined;
    if (!cut || !full || m.rounds.length === 0) continue;
    const a = figures(m);
    const f = figures(full);
    // The journal parts replace the admission with a model of another design; the others take a stage out.
    const what = /\bjournal\b/.test(cut[2] ?? '') ? `admission modelled as ${cut[2]}` : `without ${cut[2]}`;
    lines.push(
      `- ${cut[1]}, ${what}: CPU ${f0(a.gwCpu)} µs (${f0(a.gwCpu - f.gwCpu)} against the full pipeline), ` +
        `at a fixed rate ${f0(a.fixedCpu)} µs (${f0(a.fixedCpu - f.fixedCpu)}); throughput ${f2(a.vsFloor)}× floor ` +
        `(full ${f2(f.vsFloor)}×)`,
    );
  }
  if (lines.length > 0)
    console.log(
      `\nAblations (medians over rounds; same build, stages replaced or modelled):\n${lines.join('\n')}`,
    );
}

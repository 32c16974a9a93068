/** The side-by-side report of `npm run bench:gateway`: medians over rounds, ratios to nginx, the issue 12 targets. */
import type { Scenario } from './scenarios';
import type { Result } from './load';
import type { RedisWindow } from './redis-stats';

/** One round: nginx and geogate at 32 connections, then at one; the 1-minute load average after it. */
export interface Round {
  nginx32: Result;
  gw32: Result;
  nginx1: Result;
  gw1: Result;
  /** Fixed-rate windows (BENCH_RATE), null when off. */
  nginxFixed: Result | null;
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

/** The figures of a measurement, medians over its rounds. */
export function figures(m: Measurement) {
  const R = m.rounds;
  const med = (f: (r: Round) => number) => median(R.map(f));
  return {
    nginxRps: med((r) => r.nginx32.rps),
    gwRps: med((r) => r.gw32.rps),
    ratio: med((r) => r.gw32.rps / r.nginx32.rps),
    nginxP50: med((r) => r.nginx32.p50),
    gwP50: med((r) => r.gw32.p50),
    nginxP99: med((r) => r.nginx32.p99),
    gwP99: med((r) => r.gw32.p99),
    p99Ratio: med((r) => r.gw32.p99 / r.nginx32.p99),
    nginx1P99: med((r) => r.nginx1.p99),
    gw1P99: med((r) => r.gw1.p99),
    c1Diff: med((r) => r.gw1.p99 - r.nginx1.p99),
    gwCpu: med((r) => us(r.gw32, 0)),
    backendCpu: med((r) => us(r.gw32, 1)),
    redisCpu: med((r) => us(r.gw32, 2)),
    nginxCpu: med((r) => us(r.nginx32, 0)),
    gw1Cpu: med((r) => us(r.gw1, 0)),
    fixedRps: med((r) => r.gwFixed?.rps ?? NaN),
    fixedCpu: med((r) => (r.gwFixed ? us(r.gwFixed, 0) : NaN)),
    fixedNginxCpu: med((r) => (r.nginxFixed ? us(r.nginxFixed, 0) : NaN)),
    fixedP99: med((r) => r.gwFixed?.p99 ?? NaN),
    non2xx: R.reduce((n, r) => n + r.gw32.non2xx + r.gw1.non2xx, 0),
    load: med((r) => r.load),
  };
}

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');

/** The side-by-side table (medians over rounds). */
export function printSummary(ms: Measurement[]): void {
  const head = [
    'scenario',
    'nginx req/s',
    'geogate req/s',
    '**ratio**',
    'p50 ms nginx / geogate',
    'p99 ms nginx / geogate (c32)',
    '**p99 ratio c32**',
    'p99 ms c1 nginx / geogate',
    '**c1 p99 added ms**',
    '**gateway CPU µs/req**',
    'backend / redis / nginx µs',
    '**CPU µs/req at a fixed rate** (geogate / nginx; rate reached)',
    'non-2xx',
    'load',
  ];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|---${'|---:'.repeat(head.length - 1)}|`);
  for (const m of ms) {
    if (m.rounds.length === 0) continue;
    const x = figures(m);
    const redis = m.scenario.store === 'shared' ? f0(x.redisCpu) : '–';
    const cells = [
      f0(x.nginxRps),
      f0(x.gwRps),
      `**${f2(x.ratio)}×**`,
      `${f2(x.nginxP50)} / ${f2(x.gwP50)}`,
      `${f2(x.nginxP99)} / ${f2(x.gwP99)}`,
      `**${f2(x.p99Ratio)}×**`,
      `${f2(x.nginx1P99)} / ${f2(x.gw1P99)}`,
      `**${f2(x.c1Diff)}**`,
      `**${f0(x.gwCpu)}**`,
      `${f0(x.backendCpu)} / ${redis} / ${f0(x.nginxCpu)}`,
      `**${f0(x.fixedCpu)}** / ${f0(x.fixedNginxCpu)} (${f0(x.fixedRps)}/s)`,
      String(x.non2xx),
      f2(x.load),
    ];
    console.log(`| ${m.scenario.name} | ${cells.join(' | ')} |`);
  }
}

/** Issue 12's targets against the small-store scenarios (1 and 2 workers), and large store against small. */
export function printTargets(ms: Measurement[]): void {
  const lines: string[] = [];
  const mark = (ok: boolean) => (ok ? 'holds' : 'MISSED');
  // The floor (bench/lib/bare-proxy.ts): what a Node proxy of the same call costs with nothing of the gateway in it.
  const floorM = ms.find((m) => m.scenario.program !== undefined && m.rounds.length > 0);
  if (floorM) {
    const fl = figures(floorM);
    lines.push(
      `- floor, ${floorM.scenario.name}: throughput ${f2(fl.ratio)}× nginx; c1 p99 +${f2(fl.c1Diff)} ms; ` +
        `c32 p99 ${f2(fl.p99Ratio)}×; CPU ${f0(fl.gwCpu)} µs (nginx ${f0(fl.nginxCpu)} µs in the same windows); ` +
        `at a fixed rate ${f0(fl.fixedCpu)} µs (nginx ${f0(fl.fixedNginxCpu)})`,
    );
  }
  for (const m of ms) {
    const s = m.scenario;
    if (!s.targets || m.rounds.length === 0) continue;
    const x = figures(m);
    const minRatio = s.billed ? 0.4 : 0.45;
    const maxCpu = !s.billed ? 60 : s.store === 'embedded' ? 75 : 85;
    lines.push(
      `- ${s.name}: throughput ${f2(x.ratio)}× nginx (≥ ${minRatio}: ${mark(x.ratio >= minRatio)}); ` +
        `c1 p99 +${f2(x.c1Diff)} ms (≤ 0.5: ${mark(x.c1Diff <= 0.5)}); ` +
        `c32 p99 ${f2(x.p99Ratio)}× (≤ 3: ${mark(x.p99Ratio <= 3)}); ` +
        `CPU ${f0(x.gwCpu)} µs (≤ ${maxCpu}: ${mark(x.gwCpu <= maxCpu)})` +
        (floorM
          ? `; over the floor: CPU +${f0(x.gwCpu - figures(floorM).gwCpu)} µs, ` +
            `at a fixed rate ${f0(x.fixedCpu)} µs (+${f0(x.fixedCpu - figures(floorM).fixedCpu)})`
          : ''),
    );
  }
  for (const large of ms.filter((m) => m.scenario.size === 'large' && m.rounds.length > 0)) {
    const variant = (m: Measurement) => /\[[^\]]*\]$/.exec(m.scenario.name)?.[0] ?? '';
    const small = ms.find(
      (m) =>
        m.scenario.size === 'small' &&
        variant(m) === variant(large) &&
        m.scenario.store === large.scenario.store &&
        m.scenario.billed === large.scenario.billed &&
        m.scenario.workers === large.scenario.workers &&
        m.rounds.length > 0,
    );
    if (!small) continue;
    const l = figures(large);
    const sm = figures(small);
    lines.push(
      `- ${large.scenario.name}: large store vs 10 keys: CPU ${f0(l.gwCpu)} vs ${f0(sm.gwCpu)} µs, ratio ${f2(l.ratio)} vs ` +
        `${f2(sm.ratio)}×, c1 p99 +${f2(l.c1Diff)} vs +${f2(sm.c1Diff)} ms, p50 ${f2(l.gwP50)} vs ${f2(sm.gwP50)} ms`,
    );
  }
  if (lines.length > 0) console.log(`\nIssue 12 targets (medians over rounds):\n${lines.join('\n')}`);
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
        `at a fixed rate ${f0(a.fixedCpu)} µs (${f0(a.fixedCpu - f.fixedCpu)}); throughput ${f2(a.ratio)}× nginx ` +
        `(full ${f2(f.ratio)}×)`,
    );
  }
  if (lines.length > 0)
    console.log(
      `\nAblations (medians over rounds; same build, stages replaced or modelled):\n${lines.join('\n')}`,
    );
}

/**
 * The targets of the in-memory admission (D33–D37) against the floor, PASS or MISS, from one run's medians. A target
 * whose scenario did not run (BENCH_ONLY) is listed as not measured.
 */
import type { IdleFigures } from './idle';
import { f0, f2, f3, figures, redisCallsPerAdmitted, signed, type Measurement } from './report';
import type { Caller, StoreKind, StoreSize } from './scenarios';

interface Row {
  target: string;
  scenario: string;
  measured: string;
  ok: boolean | null;
}

/** The plain (not base, not ablated) measurement of a scenario, if it ran. */
function find(
  ms: Measurement[],
  store: StoreKind,
  caller: Caller,
  workers = 1,
  size: StoreSize = 'small',
): Measurement | undefined {
  return ms.find(
    (m) =>
      m.scenario.targets === true &&
      !m.scenario.name.endsWith(']') &&
      m.scenario.store === store &&
      m.scenario.caller === caller &&
      m.scenario.workers === workers &&
      m.scenario.size === size &&
      m.rounds.length > 0,
  );
}

/** Print the targets table. */
export function printTargets(ms: Measurement[], idle: IdleFigures | null): void {
  const rows: Row[] = [];
  const row = (target: string, m: Measurement | string, measured: (m: Measurement) => [string, boolean]) => {
    if (typeof m === 'string')
      return rows.push({ target, scenario: `${m}: not run`, measured: '–', ok: null });
    const [text, ok] = measured(m);
    return rows.push({ target, scenario: m.scenario.name, measured: text, ok });
  };
  /** The scenario's measurement, or its name when it did not run. */
  const want = (store: StoreKind, caller: Caller, workers = 1, size: StoreSize = 'small') =>
    find(ms, store, caller, workers, size) ??
    `${store}, ${caller}${size === 'large' ? ', large store' : ''}, ${workers} worker${workers > 1 ? 's' : ''}`;
  const stores: StoreKind[] = ['embedded', 'shared'];
  for (const store of stores)
    row('keyed billed ≥ 0.6× floor', want(store, 'billed'), (m) => {
      const x = figures(m);
      return [`${f2(x.vsFloor)}× floor (${f2(x.vsNginx)}× nginx)`, x.vsFloor >= 0.6];
    });
  for (const store of stores)
    row('keyed billed CPU ≤ floor + 50 µs', want(store, 'billed'), (m) => {
      const x = figures(m);
      // The fixed-rate figure when measured (the steadier one), else the 32-connection one.
      const over = Number.isFinite(x.fixedOver) ? x.fixedOver : x.cpuOver;
      return [
        `${signed(x.fixedOver)} µs at a fixed rate, ${signed(x.cpuOver)} µs at 32 connections`,
        over <= 50,
      ];
    });
  for (const store of stores)
    row('anonymous, one address ≥ 0.65× floor', want(store, 'anonymous'), (m) => {
      const x = figures(m);
      return [`${f2(x.vsFloor)}× floor (${f2(x.vsNginx)}× nginx)`, x.vsFloor >= 0.65];
    });
  row('anonymous, 100k addresses ≥ 0.5× floor (embedded)', want('embedded', 'addresses'), (m) => {
    const x = figures(m);
    return [`${f2(x.vsFloor)}× floor (${f2(x.vsNginx)}× nginx)`, x.vsFloor >= 0.5];
  });
  row('anonymous, 100k addresses ≤ 1 Redis call per request (shared)', want('shared', 'addresses'), (m) => {
    const x = figures(m);
    const r = redisCallsPerAdmitted(m);
    return [`${f3(r.calls)} calls per admitted request; ${f2(x.vsFloor)}× floor`, r.calls <= 1];
  });
  for (const store of stores)
    for (const caller of ['billed', 'anonymous', 'addresses'] as const) {
      const m = want(store, caller);
      row('1 connection: p99 ≤ floor + 0.3 ms', m, (m) => {
        const x = figures(m);
        return [`${f2(x.gw1P99)} − ${f2(x.floor1P99)} = ${signed(x.c1Diff, 2)} ms`, x.c1Diff <= 0.3];
      });
      row('32 connections: p99 ≤ 2× floor', m, (m) => {
        const x = figures(m);
        return [`${f2(x.gwP99)} / ${f2(x.floorP99)} ms = ${f2(x.p99Ratio)}×`, x.p99Ratio <= 2];
      });
    }
  for (const workers of [1, 2])
    row('shared: ≤ 0.05 Redis calls per admitted keyed request', want('shared', 'billed', workers), (m) => {
      const r = redisCallsPerAdmitted(m);
      return [`${f3(r.calls)} (script calls ${f3(r.scripts)})`, r.calls <= 0.05];
    });
  rows.push(
    idle === null
      ? { target: 'shared: idle ≤ 5 Redis calls/s', scenario: 'idle: not run', measured: '–', ok: null }
      : {
          target: 'shared: idle ≤ 5 Redis calls/s',
          scenario: 'one gateway, no traffic',
          measured: `${f2(idle.calls)} calls/s (${f2(idle.all)} commands/s with those inside scripts)`,
          ok: idle.calls <= 5,
        },
  );
  for (const store of stores)
    for (const caller of ['billed', 'addresses'] as const) {
      const small = find(ms, store, caller);
      row(
        '1,000,000 keys and addresses: throughput within 10 % of 10 keys',
        want(store, caller, 1, 'large'),
        (m) => {
          if (!small) return ['(the small-store run did not run)', false];
          const l = figures(m);
          const s = figures(small);
          // Against the floor of each run's own windows, so drift of the machine between the two runs cancels.
          const change = l.vsFloor / s.vsFloor - 1;
          return [
            `${f2(l.vsFloor)}× vs ${f2(s.vsFloor)}× floor (${change >= 0 ? '+' : ''}${f0(change * 100)} %); RSS ${f0(l.rssMb)} vs ${f0(s.rssMb)} MB`,
            // Within 10 % either way: a large-store run faster by more than that is noise to be measured again.
            Math.abs(change) <= 0.1,
          ];
        },
      );
    }
  const mark = (ok: boolean | null) => (ok === null ? 'not measured' : ok ? 'PASS' : '**MISS**');
  console.log('\nTargets against the floor (medians over rounds):\n');
  console.log('| target | scenario | measured | |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.target} | ${r.scenario} | ${r.measured} | ${mark(r.ok)} |`);
  printWorkersAndRss(ms);
}

/** workers: 2 beside 1 worker, and the RSS of every gateway (stated, no target). */
function printWorkersAndRss(ms: Measurement[]): void {
  const lines: string[] = [];
  for (const store of ['embedded', 'shared'] as const)
    for (const caller of ['billed', 'anonymous', 'addresses'] as const) {
      const one = find(ms, store, caller, 1);
      const two = find(ms, store, caller, 2);
      if (!one || !two) continue;
      const a = figures(one);
      const b = figures(two);
      lines.push(
        `- ${store}, ${caller}: 2 workers ${f0(b.gwRps)}/s (${f2(b.vsFloor)}× floor) beside 1 worker ${f0(a.gwRps)}/s ` +
          `(${f2(a.vsFloor)}×): ${f2(b.gwRps / a.gwRps)}×`,
      );
    }
  if (lines.length > 0)
    console.log(`\nworkers: 2 beside 1 worker (throughput at 32 connections):\n${lines.join('\n')}`);
  const rss = ms
    .filter((m) => m.rounds.length > 0)
    .map((m) => `${m.scenario.name} ${f0(figures(m).rssMb)} MB`)
    .join('; ');
  if (rss !== '') console.log(`\nRSS of the gateway process tree after its 32-connection window: ${rss}`);
}

/**
 * Issue 10 scenarios of `npm run bench:gateway`: the nominatim connector and a passthrough route, beside the geogate
 * kind, all three against the same replay backend process (bench/lib/replay-backend.ts), so the gateway's CPU per request
 * compares the connectors alone. Kept apart from bench/run/gateway.ts (one hook there) so other bench changes merge easily:
 * `backendScenarios(url)` is plain data (name, path, config lines) any runner can start gateways from.
 */
import { nativeAdapter } from '../../adapters/native';
import type { ReverseRecord } from '../../backend/records';
import { CONNECTORS } from '../../gateway/backends';
import { GEOGATE, NOMINATIM_REVERSE, PELIAS_REVERSE, PHOTON_REVERSE } from './replay-bodies';

/** One scenario: a gateway config's backend and host lines, and the path loaded through it. */
export interface BackendScenario {
  name: string;
  path: string;
  /** The config's `backend`/`backends`/`hosts` lines (the runner adds policy, listen, store, pepper, limits). */
  yaml: string[];
}

/** The reverse call of the bench (the main host). */
const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';

/** The three scenarios against a replay backend at `replay`. */
export function backendScenarios(replay: string): BackendScenario[] {
  const osm = `backends: { osm: { kind: nominatim, url: "${replay}/nominatim/" } }`;
  return [
    {
      name: 'geogate kind (replay backend), anonymous',
      path: REVERSE,
      yaml: [`backend: { url: "${replay}" }`, 'hosts: [{ name: localhost, adapter: native }]'],
    },
    {
      name: 'nominatim connector (replay backend), anonymous',
      path: REVERSE,
      yaml: [
        `backend: { url: "${replay}" }`,
        osm,
        'hosts: [{ name: localhost, adapter: native, backend: osm }]',
      ],
    },
    {
      name: 'passthrough /search, cost 1 (replay backend), anonymous',
      path: '/search?q=London&format=json',
      yaml: [
        `backend: { url: "${replay}" }`,
        osm,
        'hosts: [{ name: localhost, adapter: nominatim, backend: osm, passthrough: [{ path: /search, cost: 1 }] }]',
      ],
    },
  ];
}

/** What the runner lends: its process starter and stopper, and its measuring function. */
export interface BenchHooks<P extends { url: string; child: { pid?: number | undefined } }, R> {
  start(script: string, args: string[]): Promise<P>;
  stop(p: P): Promise<void>;
  measure(name: string, url: string, procs: { name: string; pid: number | undefined }[]): Promise<R>;
  /** Writes a gateway config (the given lines plus the runner's own) and starts the gateway on it. */
  gateway(name: string, lines: string[]): Promise<P>;
}

/** Rounds of the three scenarios, alternating (BENCH_BACKEND_ROUNDS, default 1): on a loaded machine, compare rounds. */
const ROUNDS = Math.max(1, Number(process.env['BENCH_BACKEND_ROUNDS'] ?? 1));

/** Run the three scenarios (the replay backend started and stopped here); one result each per round. */
export async function backendRuns<P extends { url: string; child: { pid?: number | undefined } }, R>(
  hooks: BenchHooks<P, R>,
): Promise<R[]> {
  const replay = await hooks.start('dist/bench/lib/replay-backend.js', ['0']);
  const out: R[] = [];
  const runs = Array.from({ length: ROUNDS }, (_, round) =>
    backendScenarios(replay.url).map((s) =>
      ROUNDS > 1 ? { ...s, name: `${s.name}, round ${round + 1}` } : s,
    ),
  ).flat();
  try {
    for (const [i, s] of runs.entries()) {
      const gw = await hooks.gateway(`backends-${i}`, s.yaml);
      try {
        const procs = [
          { name: 'gateway', pid: gw.child.pid },
          { name: 'replay', pid: replay.child.pid },
        ];
        out.push(await hooks.measure(s.name, gw.url + s.path, procs));
      } finally {
        await hooks.stop(gw);
      }
    }
  } finally {
    await hooks.stop(replay);
  }
  return out;
}

/**
 * The connectors' own cost, in process (robust on a loaded machine where end-to-end rows are noisy): per reverse
 * call, the connector's request, its reading of the recorded answer, and the main host's rendering of the record.
 * One line per kind, µs per call and the difference to the geogate kind.
 */
export function connectorCostLines(iterations = 100_000): string[] {
  const call = { kind: 'reverse' as const, lat: 48.8584, lon: 2.2945 };
  const kinds: [keyof typeof CONNECTORS, Buffer][] = [
    ['geogate', GEOGATE],
    ['nominatim', NOMINATIM_REVERSE],
    ['photon', PHOTON_REVERSE],
    ['pelias', PELIAS_REVERSE],
  ];
  const perCall = (kind: keyof typeof CONNECTORS, body: Buffer): number => {
    const c = CONNECTORS[kind];
    let sink = 0;
    const once = (): void => {
      sink += c.request(call, {}).length;
      const r = c.read(call, 200, body);
      if (r.kind !== 'record') throw new Error(`${kind}: the recorded answer is not a record`);
      sink += nativeAdapter.renderReverse(null, r.record as ReverseRecord).body.length;
    };
    for (let i = 0; i < iterations / 10; i++) once();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) once();
    const us = Number(process.hrtime.bigint() - t0) / 1000 / iterations;
    return sink > 0 ? us : NaN;
  };
  // Alternating rounds; the best of three per kind (least disturbed by other processes).
  const best = new Map<string, number>();
  for (let round = 0; round < 3; round++)
    for (const [kind, body] of kinds)
      best.set(kind, Math.min(best.get(kind) ?? Infinity, perCall(kind, body)));
  const base = best.get('geogate') ?? NaN;
  return kinds.map(([kind]) => {
    const us = best.get(kind) ?? NaN;
    const diff =
      kind === 'geogate' ? '' : `, ${us - base >= 0 ? '+' : ''}${(us - base).toFixed(2)} µs over geogate`;
    return `- ${kind}: ${us.toFixed(2)} µs per reverse call (request + read + main-host render)${diff}`;
  });
}

/**
 * The scenarios of `npm run bench:gateway` (issue 12): each runs one gateway process (or N workers) beside nginx,
 * alternating rounds. Add a scenario by appending to SCENARIOS (or pushing from another module into
 * `extraScenarios`): the runner starts the gateway with the scenario's config lines and loads `path` through both.
 */

/** What the gateway runs on: which store, and the small (10 keys) or the large (100,000 more) seeded one. */
export type StoreKind = 'embedded' | 'shared';
export type StoreSize = 'small' | 'large';

/** One measured scenario. */
export interface Scenario {
  name: string;
  store: StoreKind;
  size: StoreSize;
  /** Keyed and billed (rotating over the 10 bench keys, freePerDay 0), or anonymous (all free). */
  billed: boolean;
  workers: number;
  /** Path loaded through the gateway (default: the main host's reverse call). */
  path?: string;
  /** Path loaded through nginx for the same backend call (default: `path`; nginx maps /v1/x to the backend's /x). */
  nginxPath?: string;
  /** Extra lines of the gateway's YAML config (hosts, backends…). */
  yaml?: string[];
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Compared against the issue 12 targets (the main path on the small store, with 1 worker and with 2). */
  targets?: boolean;
  /**
   * Run this compiled bench program instead of a gateway (`--backend URL` is passed; no store is used): the floor,
   * `bench/lib/bare-proxy.ts`.
   */
  program?: string;
}

export const PATH = '/v1/reverse?lat=48.8584&lon=2.2945';

const main = (store: StoreKind, billed: boolean, workers: number, size: StoreSize = 'small'): Scenario => ({
  name: `${store}, ${billed ? 'key, billed' : 'anonymous'}${size === 'large' ? ', large store' : ''}, ${workers} worker${workers > 1 ? 's' : ''}`,
  store,
  size,
  billed,
  workers,
  targets: size === 'small',
});

/** The scenarios, in run order (store by store, so each store's services start once). */
export const SCENARIOS: Scenario[] = [
  main('embedded', false, 1),
  main('embedded', true, 1),
  main('embedded', true, 1, 'large'),
  main('embedded', false, 2),
  main('embedded', true, 2),
  main('shared', false, 1),
  main('shared', true, 1),
  main('shared', true, 1, 'large'),
  main('shared', false, 2),
  main('shared', true, 2),
];

/**
 * The floor (issue 12): a bare Node proxy of the same call (Node's HTTP server + the forwarder's undici Pool, nothing
 * else), measured beside nginx like a scenario; the targets report prints it beside each target. Run whenever a
 * target scenario is (BENCH_FLOOR=0 leaves it out).
 */
export const FLOOR: Scenario = {
  name: 'bare Node proxy (floor)',
  store: 'embedded',
  size: 'small',
  billed: false,
  workers: 1,
  program: 'dist/bench/lib/bare-proxy.js',
};

/** Scenarios added by other modules (e.g. connector or passthrough hosts); run after SCENARIOS. */
export const extraScenarios: Scenario[] = [];

/**
 * The scenarios of `npm run bench:gateway`: each runs one gateway process (or N workers) beside nginx and the floor
 * (D37), alternating rounds. Add a scenario by appending to SCENARIOS (or pushing from another module into
 * `extraScenarios`): the runner starts the gateway with the scenario's config lines and loads `path` through all three.
 */

/** What the gateway runs on: which store, and the small (10 keys) or the large (1,000,000 more) seeded one. */
export type StoreKind = 'embedded' | 'shared';
export type StoreSize = 'small' | 'large';

/**
 * Who calls: keyed and billed (rotating over the 10 bench keys, freePerDay 0), anonymous from one address (the load
 * generator's socket address), or anonymous over ADDRESSES client addresses (bench/lib/addresses.ts: one per request,
 * in X-Forwarded-For from a trusted proxy).
 */
export type Caller = 'billed' | 'anonymous' | 'addresses';

/** One measured scenario. */
export interface Scenario {
  name: string;
  store: StoreKind;
  size: StoreSize;
  caller: Caller;
  /** Keyed and billed (caller 'billed'). */
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
  /** Extra entries of the store's YAML mapping (e.g. the shared store's `leases: true`). */
  storeOptions?: string;
  /** Compared against the targets (bench/lib/targets.ts). */
  targets?: boolean;
  /**
   * Run this compiled bench program instead of a gateway (`--backend URL` is passed; no store is used): the floor,
   * `bench/lib/bare-proxy.ts`.
   */
  program?: string;
  /**
   * How geogate is put in front of the backend: its own listener (default); `library`, the middleware in an Express
   * app (bench/run/library-app.ts, mounted at /geo); `forward-auth`, nginx `auth_request` asking the gateway's
   * forward-auth listener, then proxying to the backend itself (docs/forward-auth.md). The CPU figure of a forward-auth
   * scenario is the gateway's and the auth nginx's together.
   */
  mount?: 'library' | 'forward-auth';
}

export const PATH = '/v1/reverse?lat=48.8584&lon=2.2945';

const CALLER_NAMES: Record<Caller, string> = {
  billed: 'key, billed',
  anonymous: 'anonymous, one address',
  addresses: 'anonymous, 100k addresses',
};

const main = (store: StoreKind, caller: Caller, workers: number, size: StoreSize = 'small'): Scenario => ({
  name: `${store}, ${CALLER_NAMES[caller]}${size === 'large' ? ', large store' : ''}, ${workers} worker${workers > 1 ? 's' : ''}`,
  store,
  size,
  caller,
  billed: caller === 'billed',
  workers,
  // The gateway takes the client address from X-Forwarded-For only from a trusted proxy (D3): the load generator's.
  ...(caller === 'addresses' ? { yaml: ['trustProxy: ["127.0.0.1/32"]'] } : {}),
  targets: true,
});

/** The scenarios, in run order (store by store, so each store's services start once). */
export const SCENARIOS: Scenario[] = (['embedded', 'shared'] as const).flatMap((store) => [
  main(store, 'billed', 1),
  main(store, 'anonymous', 1),
  main(store, 'addresses', 1),
  main(store, 'billed', 1, 'large'),
  main(store, 'addresses', 1, 'large'),
  main(store, 'billed', 2),
  main(store, 'anonymous', 2),
  main(store, 'addresses', 2),
]);

/**
 * The shared store without its credit leases (D33; `store.leases: false`, the default is on): keyed billed, 1 worker,
 * beside the default's row, so what leases save stays measured. Not in the targets table (the targets are the
 * default configuration's).
 */
SCENARIOS.push({
  ...main('shared', 'billed', 1),
  name: 'shared, key, billed, no leases, 1 worker',
  storeOptions: 'leases: false',
  targets: false,
});

/**
 * geogate inside what operators already run (docs/operations.md): the middleware in an Express app, and nginx
 * `auth_request` in front of the forward-auth listener; keyed billed on the embedded store, beside the standalone row.
 */
SCENARIOS.push(
  {
    ...main('embedded', 'billed', 1),
    name: 'embedded, key, billed, library (Express), 1 worker',
    mount: 'library',
    path: `/geo${PATH}`,
    nginxPath: PATH,
    targets: false,
  },
  {
    ...main('embedded', 'billed', 1),
    name: 'embedded, key, billed, forward auth (nginx auth_request), 1 worker',
    mount: 'forward-auth',
    targets: false,
  },
);

/**
 * The floor (D37): a bare Node proxy of the same call (Node's HTTP server + the forwarder's undici Pool, nothing
 * else). It runs in every round of every scenario, beside nginx and the gateway: the targets are ratios to it.
 */
export const FLOOR: Scenario = {
  name: 'bare Node proxy (floor)',
  store: 'embedded',
  size: 'small',
  caller: 'anonymous',
  billed: false,
  workers: 1,
  program: 'dist/bench/lib/bare-proxy.js',
};

/** Scenarios added by other modules (e.g. connector or passthrough hosts); run after SCENARIOS. */
export const extraScenarios: Scenario[] = [];

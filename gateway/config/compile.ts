/** Compiling a validated config once at start: rule set chosen, CIDRs parsed, hosts mapped, adapters looked up. */
import type { LeaseOptions } from '../store/shared/lease/options';
import { availableParallelism } from 'node:os';
import { ADAPTERS } from '../../adapters';
import type { Adapter } from '../../adapters/types';
import { parseCidr, type Cidr } from '../net/address';
import type { ForwardedHeader } from '../net/client-address';
import type { BurstConfig } from '../policy/burst';
import { compileServerLimits, type ListenerLimits } from '../net/server-limits';
import { ruleSetFor, type Limits, type RuleSet } from '../policy/ruleset';
import {
  compileBackends,
  compileRoutes,
  ipBackendName,
  reverseBackendName,
  type CompiledBackend,
  type PassthroughRoute,
} from './backends';
import type { RawConfig } from './schema';
import type { ErrorLinks } from '../core/errors';

/** A URL without its trailing "/" (so paths are appended as `${base}/v1/...`). */
const trimSlash = (u: string): string => u.replace(/\/+$/, '');

/** The main host's public address: the configured one, else the main listener's (a local demo's). */
function apiUrlOf(raw: RawConfig): string {
  if (raw.publicApiUrl !== undefined) return trimSlash(raw.publicApiUrl);
  const h = raw.listen.host;
  const host = h === '0.0.0.0' || h === '::' ? 'localhost' : h.includes(':') ? `[${h}]` : h;
  return `http://${host}:${raw.listen.port}`;
}

/** A host's public address: configured, else its name on the main address's scheme and port, else its own port. */
function hostUrlOf(h: RawConfig['hosts'][number], api: string): string {
  if (h.publicUrl !== undefined) return trimSlash(h.publicUrl);
  const base = new URL(api);
  if (h.name !== undefined)
    return `${base.protocol}//${h.name.toLowerCase()}${base.port ? `:${base.port}` : ''}`;
  return `${base.protocol}//${base.hostname.includes(':') ? `[${base.hostname}]` : base.hostname}:${h.port}`;
}

export type { CompiledBackend, PassthroughRoute } from './backends';

/** One host the gateway serves. */
export interface CompiledHost {
  /** Display name: the configured name, or "port:<n>" for a port-only host. */
  label: string;
  /** Lower-case Host name this entry matches on the main listener (null: matched by port only). */
  name: string | null;
  /** Its own listener port (null: served on the main listener only). */
  port: number | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  adapter: Adapter<any>;
  /** Whether requests without a credential are served (spec 5.3; A: 401 missing_key when off). */
  anonymous: boolean;
  /** D25: the backend of reverse lookups and passthrough routes. */
  backend: CompiledBackend;
  /** D25: the backend of IP lookups; null when none answers them (IP calls answered not_found, never counted). */
  ipBackend: CompiledBackend | null;
  /** D26: routes forwarded as they are, checked before the adapter's own endpoints. */
  passthrough: PassthroughRoute[];
  /** D26: the credential parameter names stripped from a passthrough query and form body (lower-case). */
  credentialNames: ReadonlySet<string>;
  /** The address customers call this host at, without a trailing "/" (configured, else from name or port). */
  publicUrl: string;
}

/** Where the state lives (mirrors the store factory's config). */
export type CompiledStoreConfig =
  | { kind: 'embedded'; path: string; admission?: 'memory' | 'direct'; foldEveryMs?: number }
  | {
      kind: 'shared';
      postgres: string;
      redis: string;
      keyPrefix?: string;
      onStoreFailure: 'closed' | 'open';
      /** D33's credit leases (SharedStoreOptions.leases). */
      leases?: Partial<LeaseOptions> | boolean;
    };

/**
 * The crash sweeper releases an admission neither kept nor released this long after it was made (issue 13 item 7):
 * the backend timeout plus a margin for rendering and settling, so it never touches a request still in flight.
 */
const SWEEP_MARGIN_MS = 10_000;

/** D38: the forward-auth listener (docs/forward-auth.md). */
export interface ForwardAuthConfig {
  listen: { host: string; port: number };
  /** Where the original request is read: X-Original-*, X-Forwarded-*, or the path after /v1/admit. */
  request: 'x-original' | 'x-forwarded' | 'path';
  /** How long a decision waits for a failure report on the release route before it is kept (0: kept at once). */
  releaseWindowMs: number;
}

export interface CompiledConfig {
  file: string;
  /** The main host's public address without a trailing "/" (configured `publicApiUrl`, else from `listen`). */
  publicApiUrl: string;
  /**
   * The customer pages error answers point at (problem pages, top-up): set by the composition root from the
   * dashboard's address (runtime/config.ts); null without a dashboard (problem types stay URNs).
   */
  customerLinks: ErrorLinks | null;
  rules: RuleSet;
  listen: { host: string; port: number };
  admin: { listen: { host: string; port: number }; token: string | null };
  /** The default backend (the top-level `backend:`, else the first named one): kept for single-backend readers. */
  backend: { url: URL; timeoutMs: number; passRequestId: boolean };
  /** D25: every backend by name (`default` is the top-level `backend:`). */
  backends: ReadonlyMap<string, CompiledBackend>;
  store: CompiledStoreConfig;
  /** The crash sweeper's age limit for unsettled admissions, passed to the store (backend timeout + margin). */
  reservationTimeoutMs: number;
  onStoreFailure: 'closed' | 'open';
  trustProxy: Cidr[];
  /** D3a: the one forwarding header read behind a trusted proxy. */
  trustProxyHeader: ForwardedHeader;
  /** Issue 13: limits of each listener against slow and idle clients. */
  serverLimits: ListenerLimits;
  /** Issue 14: graceful drain on SIGTERM/SIGINT (runtime/drain.ts). */
  drain: { delayMs: number; timeoutMs: number };
  /** Issue 12: gateway processes on the same ports (runtime/cluster.ts); `auto` is resolved to the CPU count. */
  workers: number;
  keyPepper: string;
  hosts: CompiledHost[];
  /** Served on the main listener when the Host header matches no entry: the first entry without a port. */
  defaultHost: CompiledHost | null;
  /** Name → host for the main listener. */
  hostsByName: Map<string, CompiledHost>;
  logLevel: string;
  /** json: one JSON object per line (default); pretty: for a terminal (gateway/core/logger.ts). */
  logFormat: 'json' | 'pretty';
  /** Whether the per-request log line carries `requestId` (warning and error lines always do). */
  logRequestId: boolean;
  /** D38: forward auth's listener, or null when the config has none. */
  forwardAuth: ForwardAuthConfig | null;
  /** Burst limits (gateway/policy/burst.ts), or null when the config sets none; taken by a reload. */
  burst: BurstConfig | null;
}

/** Drop undefined members so `Partial<Limits>` stays exact. */
function definedLimits(raw: RawConfig['limits']): Partial<Limits> {
  const out: Partial<Limits> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k as keyof Limits] = v;
  return out;
}

/** Compile a validated config. */
export function compileConfig(raw: RawConfig, file: string): CompiledConfig {
  const rules = ruleSetFor(raw.policy, definedLimits(raw.limits), raw.credentials?.accept);
  const backends = compileBackends(raw);
  const publicApiUrl = apiUrlOf(raw);
  const first = [...backends.values()][0];
  if (first === undefined) throw new Error('compileConfig: no backend (the config was not validated)');
  const hosts: CompiledHost[] = raw.hosts.map((h) => {
    const ipName = ipBackendName(h, backends);
    const adapter = ADAPTERS[h.adapter] as CompiledHost['adapter'];
    return {
      label: h.name ?? `port:${h.port}`,
      name: h.name?.toLowerCase() ?? null,
      port: h.port ?? null,
      adapter,
      anonymous: h.anonymous,
      backend: backends.get(reverseBackendName(h)) ?? first,
      ipBackend: ipName === null ? null : (backends.get(ipName) ?? null),
      passthrough: compileRoutes(h.passthrough),
      credentialNames: new Set(['key', ...adapter.credentialParams].map((n) => n.toLowerCase())),
      publicUrl: hostUrlOf(h, publicApiUrl),
    };
  });
  // D38: an admission waiting for its release window must outlive it before the crash sweeper may release it.
  const maxTimeout = Math.max(
    raw.forwardAuth?.releaseWindowMs ?? 0,
    ...[...backends.values()].map((b) => b.timeoutMs),
  );
  const hostsByName = new Map<string, CompiledHost>();
  for (const h of hosts) if (h.name !== null && !hostsByName.has(h.name)) hostsByName.set(h.name, h);
  const store: CompiledStoreConfig =
    raw.store.kind === 'embedded'
      ? {
          kind: 'embedded',
          path: raw.store.path,
          ...(raw.store.admission !== undefined ? { admission: raw.store.admission } : {}),
          ...(raw.store.foldEveryMs !== undefined ? { foldEveryMs: raw.store.foldEveryMs } : {}),
        }
      : {
          kind: 'shared',
          postgres: raw.store.postgres,
          redis: raw.store.redis,
          ...(raw.store.keyPrefix !== undefined ? { keyPrefix: raw.store.keyPrefix } : {}),
          ...(raw.store.leases !== undefined ? { leases: definedOnly(raw.store.leases) } : {}),
          onStoreFailure: raw.onStoreFailure,
        };
  return {
    file,
    publicApiUrl,
    customerLinks: null,
    rules,
    listen: raw.listen,
    admin: { listen: raw.admin.listen, token: raw.admin.token ?? null },
    backend: { url: first.url, timeoutMs: first.timeoutMs, passRequestId: first.passRequestId },
    backends,
    store,
    reservationTimeoutMs: maxTimeout + SWEEP_MARGIN_MS,
    onStoreFailure: raw.onStoreFailure,
    trustProxy: raw.trustProxy.map((c) => parseCidr(c) as Cidr),
    trustProxyHeader: raw.trustProxyHeader,
    serverLimits: compileServerLimits(raw.serverLimits),
    drain: raw.drain,
    workers: raw.workers === 'auto' ? availableParallelism() : raw.workers,
    keyPepper: raw.keyPepper,
    hosts,
    defaultHost: hosts.find((h) => h.port === null) ?? null,
    hostsByName,
    logLevel: raw.log?.level ?? 'info',
    logFormat: raw.log?.format ?? 'json',
    logRequestId: raw.log?.requestId ?? true,
    forwardAuth: raw.forwardAuth ?? null,
    burst: compileBurst(raw.burst),
  };
}

/** The burst section as the limiter reads it: absent windows null, absent scopes null, nothing at all null. */
function compileBurst(raw: RawConfig['burst']): BurstConfig | null {
  if (raw === undefined) return null;
  const scope = (b: { perSecond?: number | undefined; perMinute?: number | undefined } | undefined) =>
    b === undefined ? null : { perSecond: b.perSecond ?? null, perMinute: b.perMinute ?? null };
  const out: BurstConfig = {
    key: scope(raw.key),
    account: scope(raw.account),
    anonymous: scope(raw.anonymous),
  };
  return out.key === null && out.account === null && out.anonymous === null ? null : out;
}

/** Lease constants as given (keys left out stay out, so D33's defaults apply to them). */
function definedOnly(l: boolean | Record<string, number | undefined>): Partial<LeaseOptions> | boolean {
  if (typeof l === 'boolean') return l;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(l)) if (v !== undefined) out[k] = v;
  return out as Partial<LeaseOptions>;
}

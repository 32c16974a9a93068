/**
 * The Prometheus metrics of one gateway instance (issue 14 item 1; docs/gateway.md, "Metrics"): one registry per
 * instance (tests run several gateways in one process), served on the admin listener at /metrics. Labels are
 * bounded sets (host label, adapter, identity kind, outcome code, backend call, store operation): never a key,
 * an account or an address.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { buildInfo } from '../core/version';
import type { BackendCall } from '../../adapters/types';
import type { CompiledHost } from '../config/compile';
import type { GatewayCode, RefusalCode } from '../core/errors';
import type { LeaseCounters } from '../store/ports/admission';
import { CellCounter, CellHistogram, type CounterCell, type HistogramCell } from './cells';

/** What a request ended with: its gateway error code, `ok`, or `client_gone` (nothing was answered). */
export type Outcome = GatewayCode | 'ok' | 'client_gone';

/** The identity kinds of the request log line. */
export type IdentityLabel = 'none' | 'anonymous' | 'key' | 'whitelist';

/** Key cache counters a store may expose (the shared store's identification cache). */
export interface CacheStats {
  hits: number;
  misses: number;
}

/** Latency buckets in seconds: 0.5 ms to 10 s. */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** One host's pre-resolved series: identity kind → outcome → request counter cell. */
class HostSeries {
  private readonly byIdentity: Record<IdentityLabel, Map<Outcome, CounterCell>> = {
    none: new Map(),
    anonymous: new Map(),
    key: new Map(),
    whitelist: new Map(),
  };

  constructor(
    private readonly family: CellCounter,
    private readonly host: string,
    private readonly adapter: string,
    readonly duration: HistogramCell,
  ) {}

  /** The request counter of an identity kind and outcome. */
  requests(identity: IdentityLabel, outcome: Outcome): CounterCell {
    const m = this.byIdentity[identity];
    let c = m.get(outcome);
    if (c === undefined) {
      c = this.family.cell({ host: this.host, adapter: this.adapter, identity, code: outcome });
      m.set(outcome, c);
    }
    return c;
  }
}

/** The gateway's metrics. */
export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests = this.counter(
    'geogate_requests_total',
    'Requests answered, by host, adapter, identity kind and outcome code.',
    ['host', 'adapter', 'identity', 'code'],
  );
  private readonly requestSeconds = this.histogram(
    'geogate_request_duration_seconds',
    'Time from request to answer, by host.',
    ['host'],
  );
  private readonly admissionSeconds = this.histogram(
    'geogate_admission_duration_seconds',
    'Time to identify the caller and admit or refuse the request (store round trips included).',
    [],
  ).cell({});
  private readonly backendSeconds = this.histogram(
    'geogate_backend_duration_seconds',
    'Time the backend took to answer, by backend call.',
    ['backend'],
  );
  private readonly storeSeconds = this.histogram(
    'geogate_store_duration_seconds',
    'Store call latency on the request path, by operation.',
    ['op'],
  );
  private readonly storeFailures = this.counter(
    'geogate_store_failures_total',
    'Store calls on the request path that failed (store unreachable or erroring), by operation.',
    ['op'],
  );
  private readonly admissions = this.counter(
    'geogate_admissions_total',
    'Requests admitted, by billing: free (within an allowance or Unlimited) or billed (charged past it).',
    ['billing'],
  );
  private readonly refusals = this.counter(
    'geogate_admission_refusals_total',
    'Requests the admission refused, by refusal code (quota, credits, slots, rate).',
    ['code'],
  );
  private readonly burstRefusals = this.counter(
    'geogate_burst_refusals_total',
    'Requests refused 429 rate_limited by a burst limit, by scope (key, account, anonymous) and window (second, minute).',
    ['scope', 'window'],
  );
  private readonly burstCells = new Map<string, CounterCell>();
  private readonly cacheLookups = this.counter(
    'geogate_key_cache_lookups_total',
    'Key identity cache lookups of the shared store, by result (hit or miss).',
    ['result'],
  );
  private readonly leaseAdmissions = this.counter(
    'geogate_lease_admissions_total',
    'Keyed admissions of the shared store with credit leases (D33), by who decided: the lease (in memory) or the owner.',
    ['via'],
  );
  private readonly leaseGrants = this.counter(
    'geogate_lease_grants_total',
    'Credit grants asked by this instance (D33), by result: granted, or direct mode (nothing left to lease).',
    ['result'],
  );
  private readonly leaseUnits = this.counter(
    'geogate_lease_units_total',
    'Credit units returned to the owner (idle, stopped or voided leases) and written off (posted after a reclaim).',
    ['kind'],
  );
  private readonly hosts = new Map<CompiledHost, HostSeries>();
  /** Where a scrape's text comes from: this registry, or the whole worker group (runtime/cluster.ts). */
  private collect: () => Promise<string> = () => this.registry.metrics();
  private readonly backends = new Map<string, HistogramCell>();
  private readonly refusalCells = new Map<RefusalCode, CounterCell>();
  /** Admission counters: free and billed. */
  readonly free = this.admissions.cell({ billing: 'free' });
  readonly billed = this.admissions.cell({ billing: 'billed' });
  private readonly reverse = this.backend('reverse');
  private readonly ipv4 = this.backend('ipv4');
  private readonly search = this.backend('search');

  constructor(hosts: readonly CompiledHost[]) {
    collectDefaultMetrics({ register: this.registry });
    const build = buildInfo();
    new Gauge({
      name: 'geogate_build_info',
      help: 'Always 1; the labels name the running build (package version and Node.js version).',
      labelNames: ['version', 'node'],
      registers: [this.registry],
      aggregator: 'max',
    }).set({ version: build.version, node: build.node }, 1);
    for (const h of hosts) this.hostSeries(h);
  }

  /** Record one answered request (from the pipeline's finally block): two map lookups and three increments. */
  request(host: CompiledHost, identity: IdentityLabel, outcome: Outcome, ms: number): void {
    const s = this.hosts.get(host) ?? this.hostSeries(host);
    s.requests(identity, outcome).n += 1;
    s.duration.observe(ms / 1000);
  }

  /** A reload's hosts: their series (the same cells when a label stays), the replaced hosts' entries dropped. */
  hostsReloaded(hosts: readonly CompiledHost[]): void {
    this.hosts.clear();
    for (const h of hosts) this.hostSeries(h);
  }

  /** Record the time identification and admission took. */
  admission(ms: number): void {
    this.admissionSeconds.observe(ms / 1000);
  }

  /** Count an admission refusal by its code. */
  refused(code: RefusalCode): void {
    let c = this.refusalCells.get(code);
    if (c === undefined) this.refusalCells.set(code, (c = this.refusals.cell({ code })));
    c.n += 1;
  }

  /** Count a burst refusal (also counted as the admission refusal `rate_limited`); labels are bounded, no key. */
  burstRefused(scope: 'key' | 'account' | 'anonymous', window: 'second' | 'minute'): void {
    const name = `${scope}/${window}`;
    let c = this.burstCells.get(name);
    if (c === undefined) this.burstCells.set(name, (c = this.burstRefusals.cell({ scope, window })));
    c.n += 1;
    this.refused('rate_limited');
  }

  /** Record the time the backend took for a call of this kind (from the pipeline's forward step). */
  backendAnswered(kind: BackendCall['kind'], ms: number): void {
    (kind === 'reverse' ? this.reverse : kind === 'search' ? this.search : this.ipv4).observe(ms / 1000);
  }

  /** The backend latency series of a backend call kind. */
  backend(kind: string): HistogramCell {
    let c = this.backends.get(kind);
    if (c === undefined) this.backends.set(kind, (c = this.backendSeconds.cell({ backend: kind })));
    return c;
  }

  /** The latency and failure series of a store operation (resolved once, when the store is wrapped). */
  storeOp(op: string): { seconds: HistogramCell; failures: CounterCell } {
    return { seconds: this.storeSeconds.cell({ op }), failures: this.storeFailures.cell({ op }) };
  }

  /** Read the key cache counters from `stats` at each scrape. */
  watchKeyCache(stats: () => CacheStats): void {
    const hit = this.cacheLookups.cell({ result: 'hit' });
    const miss = this.cacheLookups.cell({ result: 'miss' });
    this.cacheLookups.refresh = () => {
      const s = stats();
      hit.n = s.hits;
      miss.n = s.misses;
    };
  }

  /** Read the lease counters (D33) from `stats` at each scrape. */
  watchLeases(stats: () => LeaseCounters | null): void {
    const cells = {
      lease: this.leaseAdmissions.cell({ via: 'lease' }),
      owner: this.leaseAdmissions.cell({ via: 'owner' }),
      granted: this.leaseGrants.cell({ result: 'granted' }),
      direct: this.leaseGrants.cell({ result: 'direct' }),
      returned: this.leaseUnits.cell({ kind: 'returned' }),
      writtenOff: this.leaseUnits.cell({ kind: 'written_off' }),
    };
    const refresh = () => {
      const s = stats();
      if (s === null) return;
      cells.lease.n = s.leased;
      cells.owner.n = s.misses;
      cells.granted.n = s.grants - s.direct;
      cells.direct.n = s.direct;
      cells.returned.n = s.returned;
      cells.writtenOff.n = s.writtenOff;
    };
    for (const family of [this.leaseAdmissions, this.leaseGrants, this.leaseUnits]) family.refresh = refresh;
  }

  /** Take a scrape's text from `collect` instead of this registry alone (a worker of a process group). */
  collectWith(collect: () => Promise<string>): void {
    this.collect = collect;
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.collect() };
  }

  private hostSeries(h: CompiledHost): HostSeries {
    const s = new HostSeries(
      this.requests,
      h.label,
      h.adapter.name,
      this.requestSeconds.cell({ host: h.label }),
    );
    this.hosts.set(h, s);
    return s;
  }

  private counter(name: string, help: string, labels: readonly string[]): CellCounter {
    return new CellCounter(this.registry, name, help, labels);
  }

  private histogram(name: string, help: string, labels: readonly string[]): CellHistogram {
    return new CellHistogram(this.registry, name, help, labels, LATENCY_BUCKETS);
  }
}

/**
 * The request path of one config: the backend forwarders, the passthrough transports and the pipeline's handler over
 * the (measured) admission store. The standalone gateway builds one per config generation (gateway/server.ts, a
 * reload builds the next) and the library's gate one for its mounts and `admit` (runtime/library.ts), so a mounted
 * host is served by the same handler as a listener.
 */
import type { Logger } from 'pino';
import type { CompiledConfig } from '../config/compile';
import type { Clock } from '../core/clock';
import type { Forwarder } from '../http/backend';
import type { PipelineDeps } from '../http/context';
import { createForwarders } from '../http/forwarders';
import { passthroughProxies } from '../http/passthrough-proxy';
import { createPipeline, type HostHandler, type Stages } from '../http/pipeline';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import { measuredStore } from '../metrics/measured';
import type { AllowanceObserver } from '../notify/allowance';
import type { RefusalNotes } from '../http/refusal-log';
import { BurstLimiter } from '../policy/burst';
import type { AdmissionStore } from '../store/ports';

/** What a request path is built from. */
export interface RequestPathDeps {
  config: CompiledConfig;
  /** The admission store as the pipeline calls it (see `admissionStore`). */
  store: AdmissionStore;
  clock: Clock;
  logger: Logger;
  metrics: GatewayMetrics;
  /** An injected backend forwarder (tests), never closed here; else one per configured backend, closed by `close`. */
  forward?: Forwarder;
  /** Allowance alerts (D30); absent when notifications are off. */
  allowance?: AllowanceObserver;
  /** Recent refusals of identified callers (the operator console). */
  refusals?: RefusalNotes;
  /** Request stages replaced at construction (benchmarks' ablations); none in production. */
  stages?: Partial<Stages>;
  /** Burst windows shared by the generations of one process (default: this path's own, the whole limit). */
  burst?: BurstLimiter;
}

/** A built request path. */
export interface RequestPath {
  /** Serves one request of one host: every answer, refusal and fault is written to `res`. */
  readonly handle: HostHandler;
  /** The pipeline's dependencies (forward auth and the library's `admit` run the admission segment with them). */
  readonly deps: PipelineDeps;
  /** Release the pools this path opened (once; later calls do nothing). */
  close(): void;
}

/**
 * The admission store the request path calls: the store measured into `metrics` (its key cache and leases watched), then
 * wrapped by `wrap` (benchmarks' models). Built once per instance; generations of the request path share it.
 */
export function admissionStore(
  store: AdmissionStore,
  metrics: GatewayMetrics,
  wrap?: (store: AdmissionStore) => AdmissionStore,
): AdmissionStore {
  const cacheStats = store.identityCacheStats?.bind(store);
  if (cacheStats) metrics.watchKeyCache(cacheStats);
  const leaseStats = store.leaseStats?.bind(store);
  if (leaseStats) metrics.watchLeases(leaseStats);
  const measured = measuredStore(store, metrics);
  return wrap ? wrap(measured) : measured;
}

/** Build the request path of `deps.config`. */
export function createRequestPath(deps: RequestPathDeps): RequestPath {
  const { config } = deps;
  const forwarders = deps.forward === undefined ? createForwarders(config.backends) : null;
  const forward = deps.forward ?? (forwarders as Forwarder);
  // D26: passthrough routes stream over a pool of their own per backend (slow readers never hold translated calls').
  const passthrough = passthroughProxies(config.backends);
  const pipelineDeps: PipelineDeps = {
    config,
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    forward,
    metrics: deps.metrics,
    passthrough,
    ...(deps.allowance ? { allowance: deps.allowance } : {}),
    ...(deps.refusals ? { refusals: deps.refusals } : {}),
    burst: deps.burst ?? new BurstLimiter(),
  };
  let closed = false;
  return {
    handle: createPipeline(pipelineDeps, deps.stages),
    deps: pipelineDeps,
    close() {
      if (closed) return;
      closed = true;
      if (forwarders !== null) forwarders.close();
      passthrough.close();
    },
  };
}

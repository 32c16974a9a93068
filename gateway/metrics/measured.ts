/**
 * The request path's store with its calls timed into the gateway's metrics (latency,
 * failures, admissions free/billed and refusals by code). Each series is resolved once, here, never per call.
 */
import type { PipelineStore } from '../http/context';
import type { AdmissionResult } from '../store/types';
import type { GatewayMetrics } from './gateway-metrics';

/**
 * Wrap one async store call: its latency always, a failure when it throws, and `seen` on its result. The caller
 * gets the store's own promise (no extra microtask hop on the request path); the recording hangs off it.
 */
function timed<A extends unknown[], R>(
  metrics: GatewayMetrics,
  op: string,
  call: (...args: A) => Promise<R>,
  seen?: (result: R) => void,
): (...args: A) => Promise<R> {
  const { seconds, failures } = metrics.storeOp(op);
  return (...args: A) => {
    const t0 = performance.now();
    const p = call(...args);
    p.then(
      (result) => {
        seconds.observe((performance.now() - t0) / 1000);
        if (seen) seen(result);
      },
      () => {
        seconds.observe((performance.now() - t0) / 1000);
        failures.n += 1; // the caller handles the error itself
      },
    );
    return p;
  };
}

/** Count an admission: free or billed, or refused by its code. */
function counted(metrics: GatewayMetrics): (result: AdmissionResult) => void {
  return (result) => {
    if (!result.admitted) metrics.refused(result.code);
    else if (result.billed) metrics.billed.n += 1;
    else metrics.free.n += 1;
  };
}

/** The request path's store, measured. */
export function measuredStore(store: PipelineStore, metrics: GatewayMetrics): PipelineStore {
  return {
    findKeyByHash: timed(metrics, 'find_key', store.findKeyByHash.bind(store)),
    findWhitelistedAccount: timed(metrics, 'find_whitelisted', store.findWhitelistedAccount.bind(store)),
    admit: timed(metrics, 'admit', store.admit.bind(store), counted(metrics)),
    keep: timed(metrics, 'keep', store.keep.bind(store)),
    release: timed(metrics, 'release', store.release.bind(store)),
    recordRefusal: timed(metrics, 'record_refusal', store.recordRefusal.bind(store)),
    usage: timed(metrics, 'usage', store.usage.bind(store)),
  };
}

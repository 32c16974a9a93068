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

type S = PipelineStore;

/** The request path's store, measured. Each call reads the store's method anew (stores may be proxies). */
export function measuredStore(store: PipelineStore, metrics: GatewayMetrics): PipelineStore {
  return {
    findKeyByHash: timed(metrics, 'find_key', (...a: Parameters<S['findKeyByHash']>) =>
      store.findKeyByHash(...a),
    ),
    findWhitelistedAccount: timed(
      metrics,
      'find_whitelisted',
      (...a: Parameters<S['findWhitelistedAccount']>) => store.findWhitelistedAccount(...a),
    ),
    admit: timed(metrics, 'admit', (...a: Parameters<S['admit']>) => store.admit(...a), counted(metrics)),
    keep: timed(metrics, 'keep', (...a: Parameters<S['keep']>) => store.keep(...a)),
    release: timed(metrics, 'release', (...a: Parameters<S['release']>) => store.release(...a)),
    recordRefusal: timed(metrics, 'record_refusal', (...a: Parameters<S['recordRefusal']>) =>
      store.recordRefusal(...a),
    ),
    usage: timed(metrics, 'usage', (...a: Parameters<S['usage']>) => store.usage(...a)),
  };
}

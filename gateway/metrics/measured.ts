/**
 * The request path's store and backend forwarder with their calls timed into the gateway's metrics (latency,
 * failures, admissions free/billed and refusals by code). Each series is resolved once, here, never per call.
 */
import type { BackendCall } from '../../adapters/types';
import type { Forwarder } from '../http/backend';
import type { PipelineStore } from '../http/context';
import type { AdmissionResult } from '../store/types';
import type { GatewayMetrics } from './gateway-metrics';

/** Wrap one async store call: its latency always, a failure when it throws. */
function timed<A extends unknown[], R>(
  metrics: GatewayMetrics,
  op: string,
  call: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  const { seconds, failures } = metrics.storeOp(op);
  return async (...args: A) => {
    const t0 = performance.now();
    try {
      return await call(...args);
    } catch (err) {
      failures.n += 1;
      throw err;
    } finally {
      seconds.observe((performance.now() - t0) / 1000);
    }
  };
}

/** The request path's store, measured. */
export function measuredStore(store: PipelineStore, metrics: GatewayMetrics): PipelineStore {
  const admit = timed(metrics, 'admit', store.admit.bind(store));
  return {
    findKeyByHash: timed(metrics, 'find_key', store.findKeyByHash.bind(store)),
    findWhitelistedAccount: timed(metrics, 'find_whitelisted', store.findWhitelistedAccount.bind(store)),
    keep: timed(metrics, 'keep', store.keep.bind(store)),
    release: timed(metrics, 'release', store.release.bind(store)),
    recordRefusal: timed(metrics, 'record_refusal', store.recordRefusal.bind(store)),
    usage: timed(metrics, 'usage', store.usage.bind(store)),
    async admit(plan) {
      const result: AdmissionResult = await admit(plan);
      if (!result.admitted) metrics.refused(result.code);
      else if (result.billed) metrics.billed.n += 1;
      else metrics.free.n += 1;
      return result;
    },
  };
}

/** The backend forwarder, its answer time measured per backend call kind (reverse, ipv4). */
export function measuredForwarder(forward: Forwarder, metrics: GatewayMetrics): Forwarder {
  const byKind: Record<BackendCall['kind'], ReturnType<GatewayMetrics['backend']>> = {
    reverse: metrics.backend('reverse'),
    ipv4: metrics.backend('ipv4'),
  };
  const measured = async (...args: Parameters<Forwarder>) => {
    const t0 = performance.now();
    try {
      return await forward(...args);
    } finally {
      byKind[args[2].kind].observe((performance.now() - t0) / 1000);
    }
  };
  return Object.assign(measured, { close: () => forward.close() });
}

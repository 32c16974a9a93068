/**
 * The request path's store with its calls timed into the gateway's metrics (latency, failures, admissions
 * free/billed and refusals by code). Each series is resolved once, here, never per call.
 */
import type { AdmissionStore } from '../store/ports';
import type { AdmissionResult } from '../store/types';
import type { CounterCell, HistogramCell } from './cells';
import type { GatewayMetrics } from './gateway-metrics';

/** The series of one store operation. */
interface Op {
  seconds: HistogramCell;
  failures: CounterCell;
}

/**
 * Record a store call started at `t0`: its latency always, a failure when it throws, and `seen` on its result. The
 * caller gets the store's own promise (no extra microtask hop on the request path); the recording hangs off it.
 * Fixed-arity callers and no async function: rest arguments and an async wrapper cost ~1 µs (bench/run/metrics.ts).
 */
function watch<R>(op: Op, t0: number, p: Promise<R>, seen?: (result: R) => void): Promise<R> {
  p.then(
    (result) => {
      op.seconds.observe((performance.now() - t0) / 1000);
      if (seen) seen(result);
    },
    () => {
      op.seconds.observe((performance.now() - t0) / 1000);
      op.failures.n += 1; // the caller handles the error itself
    },
  );
  return p;
}

/** Count an admission: free or billed, or refused by its code. */
function counted(metrics: GatewayMetrics): (result: AdmissionResult) => void {
  return (result) => {
    if (!result.admitted) metrics.refused(result.code);
    else if (result.billed) metrics.billed.n += 1;
    else metrics.free.n += 1;
  };
}

/** The request path's store, measured. Each call reads the store's method anew (stores may be proxies). */
export function measuredStore(store: AdmissionStore, metrics: GatewayMetrics): AdmissionStore {
  const find = metrics.storeOp('find_key');
  const whitelisted = metrics.storeOp('find_whitelisted');
  const admit = metrics.storeOp('admit');
  const keep = metrics.storeOp('keep');
  const release = metrics.storeOp('release');
  const refusal = metrics.storeOp('record_refusal');
  const usage = metrics.storeOp('usage');
  const getAccount = metrics.storeOp('get_account');
  const listSlots = metrics.storeOp('list_slots');
  const admission = counted(metrics);
  // Arguments are evaluated left to right: the clock is read before the store is called.
  return {
    findKeyByHash: (hash) => watch(find, performance.now(), store.findKeyByHash(hash)),
    findWhitelistedAccount: (address) =>
      watch(whitelisted, performance.now(), store.findWhitelistedAccount(address)),
    admit: (plan) => watch(admit, performance.now(), store.admit(plan), admission),
    keep: (ticket) => watch(keep, performance.now(), store.keep(ticket)),
    release: (ticket) => watch(release, performance.now(), store.release(ticket)),
    recordRefusal: (subjects, day) => watch(refusal, performance.now(), store.recordRefusal(subjects, day)),
    usage: (subjects, from, to) => watch(usage, performance.now(), store.usage(subjects, from, to)),
    getAccount: (id) => watch(getAccount, performance.now(), store.getAccount(id)),
    listSlots: (scope, mode, windowMs, now) =>
      watch(listSlots, performance.now(), store.listSlots(scope, mode, windowMs, now)),
  };
}

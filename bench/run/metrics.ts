/**
 * Micro-benchmark of the metrics' cost per request (issue 14 item 1: ≤ 2 µs). Times, over N iterations each:
 * (1) what the pipeline's finally block records (`GatewayMetrics.request`: requests_total + request duration);
 * (2) everything a keyed, admitted request records: (1), the admission and backend histograms, the latency of
 *     three store calls (find_key, admit, keep), the free/billed counter, and the performance.now() pairs;
 * (3) the measured store wrapper around an already-resolved admit, minus the same call unwrapped;
 * (4) a keyed request's store and backend calls (find key, admit, forward, keep) with every recording, minus the
 *     same sequence over the unwrapped store and forwarder: the whole per-request cost.
 * Usage: npm run bench:metrics -- [iterations=2000000]
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { BackendCall } from '../../adapters/types';
import { compileConfig } from '../../gateway/config/compile';
import { validateConfig } from '../../gateway/config/load';
import { GatewayMetrics, type IdentityLabel, type Outcome } from '../../gateway/metrics/gateway-metrics';
import { measuredStore } from '../../gateway/metrics/measured';
import type { BackendOutcome } from '../../gateway/http/backend';
import type { AdmissionStore } from '../../gateway/store/ports';
import type { AdmissionPlan, AdmissionResult } from '../../gateway/store/types';
import { runBench } from '../lib/services';

const N = Number(process.argv[2] ?? 2_000_000);
const IDENTITIES: IdentityLabel[] = ['anonymous', 'key', 'key', 'whitelist'];
const OUTCOMES: Outcome[] = ['ok', 'ok', 'ok', 'quota_exceeded', 'no_credits', 'ok', 'invalid_key', 'ok'];

const config = compileConfig(
  validateConfig(
    {
      policy: 'A',
      listen: { host: '127.0.0.1', port: 0 },
      admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'bench-admin-token-0123' },
      backend: { url: 'http://127.0.0.1:9', timeoutMs: 5000 },
      store: { kind: 'embedded', path: '/tmp/unused.db' },
      keyPepper: 'bench-pepper-0123456789abcdef',
      hosts: [
        { name: 'a.example', adapter: 'native' },
        { name: 'b.example', adapter: 'google' },
      ],
    },
    'bench.yaml',
    {},
  ),
  'bench.yaml',
);

/** ns per iteration of `body`, after a warm-up of N/10. */
function time(label: string, body: (i: number) => void): number {
  for (let i = 0; i < N / 10; i++) body(i);
  const t0 = performance.now();
  for (let i = 0; i < N; i++) body(i);
  const ns = ((performance.now() - t0) * 1e6) / N;
  console.log(`${label.padEnd(58)} ${ns.toFixed(0).padStart(6)} ns/request`);
  return ns;
}

async function timeAsync(label: string, body: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < N / 10; i++) await body();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await body();
  const ns = ((performance.now() - t0) * 1e6) / N;
  console.log(`${label.padEnd(58)} ${ns.toFixed(0).padStart(6)} ns/request`);
  return ns;
}

async function main(): Promise<void> {
  const m = new GatewayMetrics(config.hosts);
  const hosts = config.hosts;
  const finallyNs = time('(1) pipeline finally: request()', (i) => {
    m.request(hosts[i & 1]!, IDENTITIES[i & 3]!, OUTCOMES[i & 7]!, (i & 255) / 10);
  });
  const backend = m.backend('ipv4');
  const ops = [m.storeOp('find_key'), m.storeOp('admit'), m.storeOp('keep')];
  const allNs = time('(2) all recordings of a keyed admitted request', (i) => {
    const t0 = performance.now();
    for (const op of ops) op.seconds.observe((performance.now() - t0) / 1000);
    m.admission(performance.now() - t0);
    m.billed.n += i & 1;
    m.free.n += 1 - (i & 1);
    backend.observe((performance.now() - t0) / 1000);
    m.request(hosts[i & 1]!, 'key', 'ok', performance.now() - t0);
  });
  const result: AdmissionResult = {
    admitted: true,
    billed: false,
    charged: 0,
    quota: null,
    ticket: { planId: 'p', undo: null },
  };
  const none = () => Promise.resolve(null);
  const nothing = () => Promise.resolve();
  const raw: AdmissionStore = {
    admit: () => Promise.resolve(result),
    findKeyByHash: none,
    findWhitelistedAccount: none,
    keep: nothing,
    release: nothing,
    recordRefusal: nothing,
    usage: () => Promise.resolve([]),
    getAccount: none,
    listSlots: () => Promise.resolve([]),
  };
  const wrapped = measuredStore(raw, m);
  const plan = {} as AdmissionPlan;
  const rawNs = await timeAsync('(3a) store.admit, unwrapped (resolved promise)', () => raw.admit(plan));
  const wrappedNs = await timeAsync('(3b) store.admit, measured', () => wrapped.admit(plan));
  console.log(`(3) store wrapper overhead per call: ${(wrappedNs - rawNs).toFixed(0)} ns`);
  // (4) A keyed request's whole store + backend + pipeline sequence, measured minus unmeasured.
  const outcome: BackendOutcome = { kind: 'client_gone' };
  const rawForward = Object.assign(
    (_q: IncomingMessage, _s: ServerResponse, _c: BackendCall) => Promise.resolve(outcome),
    { close: () => undefined },
  );
  const call: BackendCall = { kind: 'ipv4', ip: '8.8.8.8' };
  const req = {} as IncomingMessage;
  const res = {} as ServerResponse;
  const ticket = { planId: 'p', undo: null };
  const host = hosts[0]!;
  const sequence = async (s: AdmissionStore, f: typeof rawForward, record: boolean) => {
    const t0 = performance.now();
    await s.findKeyByHash('h');
    await s.admit(plan);
    if (record) m.admission(performance.now() - t0);
    const sent = performance.now();
    await f(req, res, call);
    if (record) m.backendAnswered(call.kind, performance.now() - sent);
    void s.keep(ticket);
    if (record) m.request(host, 'key', 'ok', performance.now() - t0);
  };
  const plainNs = await timeAsync('(4a) keyed request sequence, no metrics', () =>
    sequence(raw, rawForward, false),
  );
  const fullNs = await timeAsync('(4b) keyed request sequence, measured', () =>
    sequence(wrapped, rawForward, true),
  );
  const perRequest = fullNs - plainNs;
  console.log(`(4) metrics cost per keyed request: ${perRequest.toFixed(0)} ns`);
  const verdict = (ns: number) => (ns <= 2000 ? 'ok' : 'OVER');
  console.log(`budget 2000 ns: (1) ${verdict(finallyNs)}, (2) ${verdict(allNs)}, (4) ${verdict(perRequest)}`);
  console.log(`node ${process.version}, ${N} iterations each`);
}

runBench(main);

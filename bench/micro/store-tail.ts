/**
 * `node dist/bench/micro/store-tail.js [admissions]`: the embedded store's latency for one request at a time (admit,
 * then keep, as the gateway does for an answered billed request), the store as createStore builds it (checkpoints on
 * the background thread). Isolates the store's share of the single-connection p99 from HTTP and the machine's
 * scheduling. Prints p50/p99/p99.9/max of three runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock, utcDay } from '../../gateway/core/clock';
import { createStore, type AdmissionPlan } from '../../gateway/store';
import { runBench } from '../lib/services';

const N = Number(process.argv[2] ?? 20_000);

async function run(): Promise<number[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-tail-'));
  const store = await createStore(
    { kind: 'embedded', path: path.join(dir, 'g.db'), reservationTimeoutMs: 60_000 },
    { clock: systemClock },
  );
  try {
    const now = Date.now();
    const acc = await store.createAccount({ email: 'tail@example.org' }, now);
    await store.credit(acc.id, 10_000_000, null, now);
    const key = await store.createKey(
      { accountId: acc.id, hash: 'h-tail', prefix: 'gk_tail1', kind: 'payg' },
      now,
    );
    const lat: number[] = [];
    for (let i = 0; i < N; i++) {
      const plan: AdmissionPlan = {
        id: `t${i}`,
        now: Date.now(),
        day: utcDay(Date.now()),
        slots: [],
        free: [{ id: `key:${key.id}`, limit: 0 }],
        overflow: { kind: 'bill', accountId: acc.id, price: 1, refuse: 'no_credits' },
        usage: [`key:${key.id}`],
        keyId: key.id,
      };
      const t = performance.now();
      await store.findKeyByHash('h-tail');
      const r = await store.admit(plan);
      if (!r.admitted) throw new Error('refused');
      lat.push(performance.now() - t);
      await store.keep(r.ticket);
    }
    return lat.sort((a, b) => a - b);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(async () => {
  console.log(
    `embedded store, ${N} billed admissions one at a time (find key + admit; keep after), load ${loadavg()[0]?.toFixed(1)}`,
  );
  for (let round = 1; round <= 3; round++) {
    const lat = await run();
    const q = (p: number) => (lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN).toFixed(3);
    const over1 = lat.filter((x) => x > 1).length;
    console.log(
      `run ${round}: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, ` +
        `p99.9 ${q(0.999)} ms, max ${(lat[lat.length - 1] ?? NaN).toFixed(2)} ms, over 1 ms: ${over1}`,
    );
  }
});

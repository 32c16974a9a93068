/**
 * `node dist/bench/micro/drain-cpu.js [events]`: CPU of the shared store's ledger drain per event in the gateway process
 * (issue 12), this build beside `DRAIN_BASE` (another build's `dist/` directory) in alternating rounds. Each round
 * admits and keeps `events` billed requests over 10 accounts (one event each in the streams), then times one
 * drain flush with process.cpuUsage (user + system: the drain's Redis and PostgreSQL client work, not the servers').
 * A private redis-server and a throw-away PostgreSQL database, as in the other benches; the first round includes
 * the JIT's warm-up.
 */
import path from 'node:path';
import { loadavg } from 'node:os';
import { systemClock } from '../../gateway/core/clock';
import type { AdmissionPlan, Store, StoreConfig } from '../../gateway/store';
import { createDatabase, runBench, startRedis } from '../lib/services';
import { drainOf } from '../lib/stores';

const EVENTS = Number(process.argv[2] ?? 5_000);
const ROUNDS = 3;

/** A build's store factory (gateway/store/index.ts createStore). */
type Create = (cfg: StoreConfig, deps: { clock: typeof systemClock }) => Promise<Store>;

function opener(dist: string): Create {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(path.join(dist, 'gateway/store')) as { createStore: Create }).createStore;
}

runBench(async () => {
  const builds: [string, string][] = [['this build', path.resolve(__dirname, '../..')]];
  const base = process.env['DRAIN_BASE'];
  if (base) builds.unshift(['base', path.resolve(base)]);
  const redis = await startRedis();
  const postgres = await createDatabase();
  const stores: { name: string; store: Store; accounts: string[] }[] = [];
  for (const [i, [name, dist]] of builds.entries()) {
    // No background drain: the flush below drains everything (a base build older than drainIntervalMs in
    // StoreConfig drains every 250 ms meanwhile).
    const cfg: StoreConfig = {
      kind: 'shared',
      postgres,
      redis: redis.url,
      keyPrefix: `drain-cpu-${i}:`,
      drainIntervalMs: 1e9,
    };
    const store = await opener(dist)(cfg, { clock: systemClock });
    const accounts: string[] = [];
    for (let a = 0; a < 10; a++) {
      const acc = await store.createAccount({ email: `drain${i}-${a}@example.org` }, Date.now());
      await store.credit(acc.id, 1e9, `drain${i}-${a}`, Date.now());
      accounts.push(acc.id);
    }
    stores.push({ name, store, accounts });
  }
  console.log(
    `shared store drain CPU per event, ${EVENTS} events per round, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  let seq = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, store, accounts } of stores) {
      const now = Date.now();
      const day = new Date(now).toISOString().slice(0, 10);
      let batch: Promise<void>[] = [];
      for (let i = 0; i < EVENTS; i++) {
        const keyId = `key_${i % 10}`;
        const plan: AdmissionPlan = {
          id: `adm_drain_${seq++}`,
          now,
          day,
          slots: [],
          free: [],
          overflow: { kind: 'bill', accountId: accounts[i % 10] as string, price: 1, refuse: 'no_credits' },
          usage: [`key:${keyId}`],
          keyId,
        };
        batch.push(
          store.admit(plan).then((r) => {
            if (!r.admitted) throw new Error(`refused: ${r.code}`);
            return store.keep(r.ticket);
          }),
        );
        if (batch.length === 64) {
          await Promise.all(batch);
          batch = [];
        }
      }
      await Promise.all(batch);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const n = await drainOf(store).flush();
      const c = process.cpuUsage(c0);
      const wall = performance.now() - t0;
      console.log(
        `${name}, round ${round + 1}: ${n} events, CPU ${((c.user + c.system) / n).toFixed(1)} µs per event, ` +
          `wall ${((wall * 1000) / n).toFixed(1)} µs per event`,
      );
    }
  }
  for (const { store } of stores) await store.close();
});

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
import type { AdmissionPlan, Store } from '../../gateway/store/types';
import { cleanupAll, createDatabase, startRedis } from '../lib/services';

const EVENTS = Number(process.argv[2] ?? 5_000);
const ROUNDS = 3;

interface Drained extends Store {
  drain: { flush(): Promise<number> };
}
type Open = (opts: Record<string, unknown>) => Promise<Drained>;

function opener(dist: string): Open {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(path.join(dist, 'gateway/store/shared')) as { openSharedStore: Open }).openSharedStore;
}

async function main(): Promise<void> {
  const builds: [string, string][] = [['this build', path.resolve(__dirname, '../..')]];
  const base = process.env['DRAIN_BASE'];
  if (base) builds.unshift(['base', path.resolve(base)]);
  const redis = await startRedis();
  const postgres = await createDatabase();
  const stores: { name: string; store: Drained; accounts: string[] }[] = [];
  for (const [i, [name, dist]] of builds.entries()) {
    const store = await opener(dist)({
      postgres,
      redis: redis.url,
      keyPrefix: `drain-cpu-${i}:`,
      clock: systemClock,
      drainIntervalMs: 1e9, // no background drain: the flush below drains everything
    });
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
      const n = await store.drain.flush();
      const c = process.cpuUsage(c0);
      const wall = performance.now() - t0;
      console.log(
        `${name}, round ${round + 1}: ${n} events, CPU ${((c.user + c.system) / n).toFixed(1)} µs per event, ` +
          `wall ${((wall * 1000) / n).toFixed(1)} µs per event`,
      );
    }
  }
  for (const { store } of stores) await store.close();
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => void cleanupAll());

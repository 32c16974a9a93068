/**
 * `node dist/bench/micro/store-cpu.js [rounds]`: CPU per admission of the embedded store alone, the way the gateway drives
 * it (find the key, admit, keep after the answer), for an anonymous plan and a billed one, with `BATCH` admissions
 * submitted per event-loop turn (1: one connection; 8: what 32 connections give one group commit). Each round
 * alternates this build's store with `STORE_BASE` (another build's dist/gateway/store/index.js, whose createStore builds it) when given, so the
 * two are measured side by side. Prints CPU µs per admitted request (process.cpuUsage: user + system).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock, utcDay } from '../../gateway/core/clock';
import type { AdmissionPlan, Store, StoreConfig } from '../../gateway/store';
import { runBench } from '../lib/services';
import { keyedBilledPlan } from '../lib/plans';

/** A build's store factory (gateway/store/index.ts createStore). */
type Create = (cfg: StoreConfig, deps: { clock: typeof systemClock }) => Promise<Store>;

const ROUNDS = Number(process.argv[2] ?? 3);
const N = Number(process.env['STORE_N'] ?? 20_000);
const BATCHES = (process.env['STORE_BATCH'] ?? '1,8').split(',').map(Number);

interface Build {
  createStore: Create;
  /** A plan id as that build's gateway makes one (time-ordered since issue 12, a random UUID before). */
  planId(): string;
}

function load(module: string): Build {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const createStore = (require(module) as { createStore: Create }).createStore;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ids = require(path.join(path.dirname(require.resolve(module)), 'ids')) as {
    newOrderedId?: (prefix: 'adm') => string;
  };
  const ordered = ids.newOrderedId;
  return { createStore, planId: ordered ? () => ordered('adm') : () => `adm_${randomUUID()}` };
}

async function measure(
  { createStore, planId }: Build,
  kind: 'anonymous' | 'billed',
  batch: number,
): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-cpu-'));
  const store = await createStore(
    { kind: 'embedded', path: path.join(dir, 'g.db'), reservationTimeoutMs: 60_000 },
    { clock: systemClock },
  );
  try {
    const now = Date.now();
    const acc = await store.createAccount({ email: 'cpu@example.org' }, now);
    await store.credit(acc.id, 10_000_000, null, now);
    const key = await store.createKey(
      { accountId: acc.id, hash: 'h-cpu', prefix: 'gk_cpu01', kind: 'payg' },
      now,
    );
    const planOf = (): AdmissionPlan => {
      const t = Date.now();
      const id = planId();
      const day = utcDay(t);
      return kind === 'anonymous'
        ? {
            id,
            now: t,
            day,
            slots: [],
            free: [{ id: 'network:127.0.0.1', limit: 1e12 }],
            overflow: { kind: 'refuse', code: 'quota_exceeded' },
            usage: ['network:127.0.0.1'],
            keyId: null,
          }
        : keyedBilledPlan(id, t, day, key.id, acc.id, '127.0.0.1');
    };
    const one = async (): Promise<void> => {
      if (kind === 'billed') await store.findKeyByHash('h-cpu');
      const r = await store.admit(planOf());
      if (!r.admitted) throw new Error(`refused: ${r.code}`);
      // The answer comes a turn later; the keep is not awaited by the gateway.
      await new Promise<void>((resolve) => setImmediate(resolve));
      void store.keep(r.ticket);
    };
    for (let i = 0; i < 2_000; i += batch) await Promise.all(Array.from({ length: batch }, one)); // warm-up
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i += batch) await Promise.all(Array.from({ length: batch }, one));
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / N;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(async () => {
  const builds: [string, Build][] = [['this build', load('../../gateway/store')]];
  const base = process.env['STORE_BASE'];
  if (base) builds.unshift(['base', load(base)]);
  console.log(
    `embedded store CPU per admission, ${N} per measurement, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const kinds = (process.env['STORE_KINDS'] ?? 'anonymous,billed').split(',') as ('anonymous' | 'billed')[];
  for (const kind of kinds) {
    for (const batch of BATCHES) {
      const seen = new Map<string, number[]>();
      for (let r = 0; r < ROUNDS; r++) {
        for (const [name, build] of builds) {
          const us = await measure(build, kind, batch);
          seen.set(name, [...(seen.get(name) ?? []), us]);
        }
      }
      const line = [...seen].map(([name, v]) => {
        const s = [...v].sort((a, b) => a - b);
        return `${name} ${s[Math.floor(s.length / 2)]?.toFixed(1)} µs (${v.map((x) => x.toFixed(1)).join('/')})`;
      });
      console.log(`${kind}, ${batch} per turn: ${line.join('; ')}`);
    }
  }
  console.log(
    `load at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
});

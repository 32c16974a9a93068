/**
 * Micro bench of the journal (D34): what it costs a turn of k requests to be written before its answers leave,
 * for each way a pipeline can observe "this turn's records are written". Turns are setImmediate callbacks; each
 * request appends one admission-sized record and then answers (a counter). Variants:
 * - `none`: no journal (the floor of the driver);
 * - `promise`: each request awaits the turn's shared promise (`written()`), flushed on setImmediate;
 * - `hook`: the pipeline calls `flush()` at the end of its turn, then answers synchronously (autoFlush off);
 * - `hook+immediate`: the same with the setImmediate safety net left on;
 * - `write-per-record`: one writeSync per record (what the journal avoids).
 * CPU is the whole process's (libuv threads included). Then the fold tick on its own: fdatasync + a no-op fold
 * of one interval's records. Prints medians of 3 rounds and `uptime`.
 * Usage: npm run bench:journal [-- requestsPerVariant]
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from '../../gateway/journal/journal';
import type { AdmitRecord } from '../../gateway/journal/settle';
import { onCleanup, runBench } from '../lib/services';

type Variant = 'none' | 'promise' | 'hook' | 'hook+immediate' | 'write-per-record';
const VARIANTS: Variant[] = ['none', 'promise', 'hook', 'hook+immediate', 'write-per-record'];
const PER_TURN = [1, 8, 64];
const REQUESTS = Number(process.argv[2] ?? 200_000);
const dir = mkdtempSync(join(tmpdir(), 'gg-journal-bench-'));

const record = (n: number): AdmitRecord => ({
  t: 'a',
  id: `p-${n}`,
  account: 'acc_0123456789',
  key: 'key_01234567',
  units: 1,
  amount: 100,
  at: 1_795_770_000_000 + n,
});

/** Runs `requests` requests in turns of `k` through `variant`; wall and CPU ns per request. */
async function run(variant: Variant, k: number, requests: number): Promise<{ wall: number; cpu: number }> {
  const name = `v${Math.random().toString(36).slice(2, 8)}`;
  const journal =
    variant === 'none' || variant === 'write-per-record'
      ? undefined
      : await Journal.open<AdmitRecord>({
          dir,
          name,
          foldedPosition: 0,
          fold: () => undefined,
          foldEveryMs: 3_600_000, // the fold tick is measured on its own below
          autoFlush: variant !== 'hook',
          segmentBytes: 64 << 20,
        });
  const raw = variant === 'write-per-record' ? openSync(join(dir, `${name}.raw`), 'a') : -1;
  let answered = 0;
  const answer = (): void => void (answered += 1);
  const turns = Math.ceil(requests / k);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await new Promise<void>((done) => {
    let turn = 0;
    const step = (): void => {
      for (let i = 0; i < k; i++) {
        const r = record(turn * k + i);
        if (variant === 'none') answer();
        else if (variant === 'write-per-record') {
          writeSync(raw, `${JSON.stringify(r)}\n`);
          answer();
        } else {
          journal?.append(r);
          if (variant === 'promise') void journal?.written().then(answer);
        }
      }
      if (variant === 'hook' || variant === 'hook+immediate') {
        journal?.flush();
        for (let i = 0; i < k; i++) answer();
      }
      turn += 1;
      if (turn < turns) setImmediate(step);
      else setImmediate(() => setImmediate(done));
    };
    step();
  });
  const wall = Number(process.hrtime.bigint() - t0);
  const used = process.cpuUsage(cpu0);
  if (answered !== turns * k) throw new Error(`${variant}: ${answered} answers of ${turns * k}`);
  await journal?.close();
  if (raw >= 0) closeSync(raw);
  return { wall: wall / answered, cpu: ((used.user + used.system) * 1000) / answered };
}

/** The fold tick: fdatasync + a no-op fold of `records` records written in turns of 8; ms per tick. */
async function foldTick(records: number): Promise<number> {
  const journal = await Journal.open<AdmitRecord>({
    dir,
    name: `fold${records}`,
    foldedPosition: 0,
    fold: () => undefined,
    foldEveryMs: 3_600_000,
    autoFlush: false,
  });
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (let n = 0; n < records; n++) {
      journal.append(record(n));
      if (n % 8 === 7) journal.flush();
    }
    journal.flush();
    const t0 = process.hrtime.bigint();
    await journal.foldNow();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  await journal.close();
  return median(times);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  console.log(`uptime: ${execFileSync('uptime').toString().trim()}`);
  console.log(`node ${process.version}, ${REQUESTS} requests per variant and turn size, median of 3 rounds`);
  console.log('variant            k   wall ns/req  cpu ns/req  over none (cpu)');
  for (const k of PER_TURN) {
    const results = new Map<Variant, { wall: number[]; cpu: number[] }>();
    for (let round = 0; round < 3; round++)
      for (const v of VARIANTS) {
        const r = await run(v, k, REQUESTS);
        const acc = results.get(v) ?? { wall: [], cpu: [] };
        acc.wall.push(r.wall);
        acc.cpu.push(r.cpu);
        results.set(v, acc);
      }
    const base = median(results.get('none')?.cpu ?? []);
    for (const [v, r] of results) {
      const cpu = median(r.cpu);
      const row = [v.padEnd(17), String(k).padStart(3), median(r.wall).toFixed(0).padStart(12)];
      console.log([...row, cpu.toFixed(0).padStart(11), (cpu - base).toFixed(0).padStart(15)].join(' '));
    }
  }
  for (const n of [1_000, 10_000, 100_000])
    console.log(`fold tick (fdatasync + fold) of ${n} records: ${(await foldTick(n)).toFixed(2)} ms`);
  console.log(`uptime: ${execFileSync('uptime').toString().trim()}`);
}

onCleanup(() => rmSync(dir, { recursive: true, force: true }));
runBench(main);

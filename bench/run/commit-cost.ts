/**
 * `node dist/bench/run/commit-cost.js [rounds]` (`npm run bench:commit`): what one SQLite write transaction of the
 * embedded store costs, by the number of billed admissions' rows it carries (issue 12, ninth session). Each
 * transaction inserts K ledger rows (the real table and indexes, made by the store's migrations) and debits the
 * account once by their sum, then commits: what a write-behind of K answered requests would write. Prints CPU
 * (process.cpuUsage, user + system, all threads) and wall time per transaction and per row, for K in `COMMIT_ROWS`
 * (default 1,3,10,30,100). The fixed part is the commit; the per-row part is the B-tree work.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../../gateway/core/clock';
import { createStore, type EmbeddedStore } from '../../gateway/store';
import { newOrderedId } from '../../gateway/store/ids';
import { foldStatements } from '../models/write-behind';
import { runBench } from '../lib/services';

const ROUNDS = Number(process.argv[2] ?? 3);
const ROWS = (process.env['COMMIT_ROWS'] ?? '1,3,10,30,100').split(',').map(Number);
/** Rows written per measurement (transactions = ROWS_PER_RUN / K). */
const ROWS_PER_RUN = Number(process.env['COMMIT_N'] ?? 30_000);

runBench(async () => {
  for (const k of ROWS) {
    if (!Number.isInteger(k) || k < 1) throw new Error(`COMMIT_ROWS: not a positive integer: ${k}`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'gg-commit-'));
  const store = (await createStore(
    { kind: 'embedded', path: path.join(dir, 'g.db'), reservationTimeoutMs: 60_000 },
    { clock: systemClock },
  )) as EmbeddedStore;
  try {
    const now = Date.now();
    const acc = await store.createAccount({ email: 'commit@example.org' }, now);
    await store.credit(acc.id, 1_000_000_000, null, now);
    const db = store.db;
    // The write-behind model's ledger insert and guarded debit (the store's rows: test/integration/gateway/composition.test.ts).
    const { ledgerInsert, debit } = foldStatements(db);
    const write = db.transaction((rows: number) => {
      const at = Date.now();
      for (let i = 0; i < rows; i++) {
        ledgerInsert.run(newOrderedId('led'), acc.id, -1, 'charge', null, newOrderedId('adm'), at);
      }
      if (debit.run(rows, acc.id, rows).changes !== 1) throw new Error('commit-cost: the account ran dry');
    });
    console.log(
      `embedded store, one write transaction of K billed rows (${ROWS_PER_RUN} rows per line), load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(
      '| round | K | CPU µs per transaction | CPU µs per row | wall µs per transaction | wall µs per row |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|');
    for (let round = 1; round <= ROUNDS; round++) {
      for (const k of ROWS) {
        const turns = Math.max(1, Math.floor(ROWS_PER_RUN / k));
        const c0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        for (let t = 0; t < turns; t++) write(k);
        const wallUs = Number(process.hrtime.bigint() - t0) / 1000;
        const c = process.cpuUsage(c0);
        const cpuUs = c.user + c.system;
        const f = (x: number) => x.toFixed(1);
        const cells = [cpuUs / turns, cpuUs / turns / k, wallUs / turns, wallUs / turns / k].map(f);
        console.log(`| ${round} | ${k} | ${cells.join(' | ')} |`);
      }
    }
    console.log(
      `load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at the end`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

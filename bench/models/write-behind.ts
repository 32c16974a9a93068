/**
 * The write-behind of bench/models/ablate.ts's `journal+fold…` models (issue 12, ninth session): one transaction per batch
 * of journaled admissions into the embedded store's file, with the store's own statements where it has them (the
 * ledger insert and the debit of prepareHot, the usage sums of UsageFold): a ledger row per charged request, the
 * balance debited once per account, each free counter incremented once by its sum. Loaded by the gateway's thread
 * (`fold`) or by bench/models/writer-thread.ts (`fold…+thread`). For measurement only.
 */
import type Database from 'better-sqlite3';
import { prepareHot } from '../../gateway/store/embedded/hot-statements';
import { UsageFold } from '../../gateway/store/embedded/usage-fold';
import { newOrderedId } from '../../gateway/store/ids';
import type { AdmissionPlan } from '../../gateway/store/types';

/** A journaled admission: its plan and what it charged (0 when free). */
export interface Admitted {
  plan: AdmissionPlan;
  charge: number;
}

/** Writes a batch of journaled admissions behind the answers. */
export type Fold = (batch: Admitted[]) => void;

/** One transaction per call into `db` (see the header). */
export function writeBehind(db: Database.Database): Fold {
  const { ledgerInsert, debit } = prepareHot(db);
  const usage = new UsageFold(db);
  // The store increments a counter by 1 per admission; the model adds a batch's sum at once.
  const counter = db.prepare(
    `INSERT INTO counters_daily (day, counter_id, used) VALUES (?, ?, ?)
     ON CONFLICT (day, counter_id) DO UPDATE SET used = used + excluded.used`,
  );
  const sum = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  return db.transaction((batch: Admitted[]) => {
    const debits = new Map<string, number>();
    const counters = new Map<string, number>();
    for (const { plan, charge } of batch) {
      if (charge > 0 && plan.overflow.kind === 'bill') {
        const account = plan.overflow.accountId;
        ledgerInsert.run(newOrderedId('led'), account, -charge, 'charge', plan.keyId, plan.id, plan.now);
        sum(debits, account, charge);
      } else for (const c of plan.free) sum(counters, `${plan.day}\t${c.id}`, 1);
      for (const subject of plan.usage) usage.add(plan.day, subject, charge > 0 ? 'billed' : 'free');
    }
    for (const [account, amount] of debits) {
      if (debit.run(amount, account, amount).changes !== 1)
        throw new Error(`write-behind: ${account} ran dry`);
    }
    for (const [k, n] of counters) counter.run(...k.split('\t'), n);
    usage.write();
  });
}

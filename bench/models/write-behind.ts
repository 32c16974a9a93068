/**
 * The write-behind of the `journal+fold…` models (models/journal.ts): one transaction per batch of journaled
 * admissions into the embedded store's file, writing the rows the store writes for the same admissions (charges added
 * to their (account, key, UTC hour) ledger rows, D35; the balance debited by the sum per
 * account, each free counter and each usage row incremented by its sum), on the connection it is given: the store's own (`fold`) or the writer thread's (`fold…+thread`,
 * models/writer-thread.ts). Its statements are its own, against the store's schema; test/integration/gateway/composition.test.ts
 * checks that a fold leaves the same balances, ledger, counters and usage as the store's own admissions.
 * For measurement only.
 */
import type Database from 'better-sqlite3';
import { hourlyChargeRef, hourStartOf } from '../../gateway/store/charge-hour';
import { newOrderedId } from '../../gateway/store/ids';
import type { AdmissionPlan } from '../../gateway/store';

/** A journaled admission: its plan and what it charged (0 when free). */
export interface Admitted {
  plan: AdmissionPlan;
  charge: number;
}

/** Writes a batch of journaled admissions behind the answers. */
export type Fold = (batch: Admitted[]) => void;

/**
 * The model's statements: what a debit, a counter and a usage row cost the store; `ledgerInsert` is a per-request
 * charge row as before D35 (run/commit-cost.ts measures K of them).
 */
export function foldStatements(
  db: Database.Database,
): Record<'ledgerInsert' | 'hourly' | 'debit' | 'counter' | 'usage', Database.Statement> {
  return {
    ledgerInsert: db.prepare(
      `INSERT INTO ledger (id, account_id, amount, kind, key_id, ref, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    // D35: a batch's charges added to their hourly row (its ref, charge-hour.ts, is unique per account).
    hourly: db.prepare(
      `INSERT INTO ledger (id, account_id, amount, kind, key_id, ref, created_at, count, hour_start)
       VALUES (?, ?, ?, 'charge', ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, ref) DO UPDATE SET amount = amount + excluded.amount, count = count + excluded.count`,
    ),
    debit: db.prepare('UPDATE accounts SET balance = balance - ? WHERE id = ? AND balance >= ?'),
    // The store increments a counter by 1 per admission; the model adds a batch's sum at once.
    counter: db.prepare(
      `INSERT INTO counters_daily (day, counter_id, used) VALUES (?, ?, ?)
       ON CONFLICT (day, counter_id) DO UPDATE SET used = used + excluded.used`,
    ),
    usage: db.prepare(
      `INSERT INTO usage_daily (day, subject, free, billed, refused) VALUES (?, ?, ?, ?, 0)
       ON CONFLICT (subject, day) DO UPDATE SET free = free + excluded.free, billed = billed + excluded.billed`,
    ),
  };
}

/** One transaction per call into `db` (see the header). */
export function writeBehind(db: Database.Database): Fold {
  const { hourly, debit, counter, usage } = foldStatements(db);
  const sum = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  return db.transaction((batch: Admitted[]) => {
    const debits = new Map<string, number>();
    const hours = new Map<
      string,
      { account: string; keyId: string | null; hour: number; n: number; sum: number }
    >();
    const counters = new Map<string, number>();
    const used = new Map<string, { free: number; billed: number }>();
    for (const { plan, charge } of batch) {
      if (charge > 0 && plan.overflow.kind === 'bill') {
        const account = plan.overflow.accountId;
        const hour = hourStartOf(plan.now);
        const k = `${account}\t${hourlyChargeRef(plan.keyId, hour)}`;
        const h = hours.get(k);
        if (h) {
          h.n += 1;
          h.sum += charge;
        } else hours.set(k, { account, keyId: plan.keyId, hour, n: 1, sum: charge });
        sum(debits, account, charge);
      } else for (const c of plan.free) sum(counters, `${plan.day}\t${c.id}`, 1);
      for (const subject of plan.usage) {
        const k = `${plan.day}\t${subject}`;
        const u = used.get(k) ?? { free: 0, billed: 0 };
        if (charge > 0) u.billed += 1;
        else u.free += 1;
        used.set(k, u);
      }
    }
    for (const [account, amount] of debits) {
      if (debit.run(amount, account, amount).changes !== 1)
        throw new Error(`write-behind: ${account} ran dry`);
    }
    for (const h of hours.values()) {
      const ref = hourlyChargeRef(h.keyId, h.hour);
      hourly.run(newOrderedId('led'), h.account, -h.sum, h.keyId, ref, h.hour, h.n, h.hour);
    }
    for (const [k, n] of counters) counter.run(...k.split('\t'), n);
    for (const [k, u] of used) usage.run(...k.split('\t'), u.free, u.billed);
  });
}

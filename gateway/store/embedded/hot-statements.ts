/** The hot path's prepared statements (identification, admission, release), prepared once per store. */
import type Database from 'better-sqlite3';
import { prepareHourly, type Prepared } from './ledger-hour';
import { KEY_COLUMNS } from '../rows';

/** The key columns of an identification, prefixed `k_` (rows.ts toKeyIdentity). */
const KEY_SELECT = KEY_COLUMNS.map((c) => `k.${c} AS k_${c}`).join(', ');

/** Prepare every hot-path statement on `db`. */
export function prepareHot(db: Database.Database) {
  const p = (sql: string): Prepared => db.prepare(sql);
  /** A statement answering its first column's value. */
  const first = (sql: string): Prepared => db.prepare(sql).pluck();
  return {
    // D39: a presented hash is a key's current secret or, during a rotation's overlap, its previous one (then
    // `secret_until` says until when). Two index lookups in one statement; bind the hash twice.
    keyByHash: p(
      `SELECT ${KEY_SELECT}, NULL AS secret_until, a.*
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?
       UNION ALL
       SELECT ${KEY_SELECT}, k.previous_until AS secret_until, a.*
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.previous_hash = ?`,
    ),
    // Entries of different accounts never overlap (D18), so the entry with the greatest start ≤ the address is the
    // only candidate from another account; a miss on it can only be covered by an entry of the candidate's account.
    whitelistNearest: p(
      `SELECT account_id, range_end FROM whitelist WHERE family = ? AND range_start <= ?
       ORDER BY range_start DESC LIMIT 1`,
    ),
    whitelistAccountCovers: first(
      // "+" keeps SQLite on the account index (an account has few entries) instead of the range index.
      `SELECT 1 FROM whitelist WHERE account_id = ? AND +family = ? AND +range_start <= ? AND range_end >= ? LIMIT 1`,
    ),
    accountById: p('SELECT * FROM accounts WHERE id = ?'),
    slotsOfScope: p('SELECT member, first_seen, last_seen FROM slots WHERE scope = ?'),
    slotUpsert: p(
      `INSERT INTO slots (scope, member, first_seen, last_seen) VALUES (?, ?, ?, ?)
       ON CONFLICT (scope, member) DO UPDATE SET first_seen = excluded.first_seen, last_seen = excluded.last_seen`,
    ),
    slotTouch: p('UPDATE slots SET last_seen = ? WHERE scope = ? AND member = ?'),
    slotDelete: p('DELETE FROM slots WHERE scope = ? AND member = ?'),
    slotUndoAdd: p('DELETE FROM slots WHERE scope = ? AND member = ? AND first_seen = ? AND last_seen = ?'),
    slotUndoTouch: p('UPDATE slots SET last_seen = ? WHERE scope = ? AND member = ? AND last_seen = ?'),
    counterGet: first('SELECT used FROM counters_daily WHERE day = ? AND counter_id = ?'),
    counterIncrement: p(
      `INSERT INTO counters_daily (day, counter_id, used) VALUES (?, ?, 1)
       ON CONFLICT (day, counter_id) DO UPDATE SET used = used + 1`,
    ),
    counterDecrement: p(
      'UPDATE counters_daily SET used = used - 1 WHERE day = ? AND counter_id = ? AND used > 0',
    ),
    debit: p('UPDATE accounts SET balance = balance - ? WHERE id = ? AND balance >= ?'),
    refund: p('UPDATE accounts SET balance = balance + ? WHERE id = ?'),
    accountExists: first('SELECT 1 FROM accounts WHERE id = ?'),
    // D35: charges go to their (account, key, UTC hour) row (ledger-hour.ts).
    ...prepareHourly(db),
    // A charge made before migration 009 is its own row (ref = the admission id); its release deletes it.
    ledgerDeleteCharge: p("DELETE FROM ledger WHERE account_id = ? AND ref = ? AND kind = 'charge'"),
    // An admission's usage is folded per batch (usage-fold.ts); a refusal's is counted here.
    usageAdd: {
      refused: p(
        `INSERT INTO usage_daily (day, subject, free, billed, refused) VALUES (?, ?, 0, 0, 1)
         ON CONFLICT (subject, day) DO UPDATE SET refused = refused + 1`,
      ),
    },
    usageUndo: {
      free: p('UPDATE usage_daily SET free = free - 1 WHERE day = ? AND subject = ? AND free > 0'),
      billed: p('UPDATE usage_daily SET billed = billed - 1 WHERE day = ? AND subject = ? AND billed > 0'),
    },
    usageDropEmpty: p(
      'DELETE FROM usage_daily WHERE day = ? AND subject = ? AND free = 0 AND billed = 0 AND refused = 0',
    ),
    admissionExists: first('SELECT 1 FROM admissions WHERE plan_id = ?'),
    admissionInsert: p('INSERT INTO admissions (plan_id, created_at) VALUES (?, ?)'),
    admissionDelete: p('DELETE FROM admissions WHERE plan_id = ?'),
  };
}

export type HotStatements = ReturnType<typeof prepareHot>;

/**
 * Auto top-up in the store: an account's settings (threshold, amount, the saved card) and one attempt row per
 * crossing of the threshold. The attempt's id is `<account>:<crossing>`, its primary key: inserting it is the claim,
 * so of any number of sweeps (any instance, either store) exactly one charges a crossing. A crossing is "armed"
 * while it has no attempt row; re-arming bumps the crossing number once the balance is back at the threshold.
 */

/** An account's auto top-up settings. */
export interface AutoTopUpSettings {
  accountId: string;
  /** Whether it charges at all (false until turned on; turned off after too many failures in a row). */
  enabled: boolean;
  /** Balance in units below which the card is charged; null until chosen. */
  threshold: number | null;
  /** Units bought per top-up; null until chosen. */
  amount: number | null;
  /** The payment provider's customer (Stripe `cus_…`) the card is saved on. */
  customerId: string | null;
  /** The saved card (Stripe `pm_…`); null until one is saved. */
  paymentMethodId: string | null;
  /** How the card is shown ("visa •••• 4242, 12/2034"); never the number. */
  cardLabel: string | null;
  /** Number of the current crossing: part of the attempt's id and of the provider's idempotency key. */
  seq: number;
  /** Failed attempts since the last success (or since the card or settings changed). */
  failures: number;
  /** Why it was turned off, when it was ("failures"), else null. */
  disabledReason: string | null;
  updatedAt: number;
}

/** How an attempt stands. */
export type AutoTopUpStatus = 'pending' | 'succeeded' | 'failed';

/** One charge of a saved card for one crossing. */
export interface AutoTopUpAttempt {
  /** `<account>:<crossing>`. */
  id: string;
  accountId: string;
  seq: number;
  units: number;
  status: AutoTopUpStatus;
  /** The provider's payment (Stripe `pi_…`) once known. */
  paymentIntent: string | null;
  /** The provider's error code of a failure (card_declined, authentication_required, …); never a message. */
  error: string | null;
  createdAt: number;
  finishedAt: number | null;
}

/** The end of an attempt. */
export interface AutoTopUpOutcome {
  status: 'succeeded' | 'failed';
  paymentIntent: string | null;
  error: string | null;
}

/** What finishing an attempt did. */
export interface AutoTopUpFinish {
  /** False when the attempt was not pending (another instance or the webhook finished it first). */
  changed: boolean;
  /** Failures in a row after this one. */
  failures: number;
  /** Whether this failure turned auto top-up off. */
  switchedOff: boolean;
}

/** The id of an account's attempt for crossing `seq`. */
export function attemptId(accountId: string, seq: number): string {
  return `${accountId}:${seq}`;
}

/** The settings of an account that never saved any. */
export function defaultAutoTopUp(accountId: string): AutoTopUpSettings {
  return {
    accountId,
    enabled: false,
    threshold: null,
    amount: null,
    customerId: null,
    paymentMethodId: null,
    cardLabel: null,
    seq: 0,
    failures: 0,
    disabledReason: null,
    updatedAt: 0,
  };
}

type Row = Record<string, unknown>;
const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** An auto_topup_settings row. */
export function toAutoTopUp(r: Row): AutoTopUpSettings {
  return {
    accountId: String(r['account_id']),
    enabled: num(r['enabled']) === 1,
    threshold: numOrNull(r['threshold']),
    amount: numOrNull(r['amount']),
    customerId: strOrNull(r['customer_id']),
    paymentMethodId: strOrNull(r['payment_method_id']),
    cardLabel: strOrNull(r['card_label']),
    seq: num(r['seq']),
    failures: num(r['failures']),
    disabledReason: strOrNull(r['disabled_reason']),
    updatedAt: num(r['updated_at']),
  };
}

/** An auto_topup_attempts row. */
export function toAttempt(r: Row): AutoTopUpAttempt {
  const status = String(r['status']);
  return {
    id: String(r['id']),
    accountId: String(r['account_id']),
    seq: num(r['seq']),
    units: num(r['units']),
    status: status === 'succeeded' || status === 'failed' ? status : 'pending',
    paymentIntent: strOrNull(r['payment_intent']),
    error: strOrNull(r['error']),
    createdAt: num(r['created_at']),
    finishedAt: numOrNull(r['finished_at']),
  };
}

/** The largest page of `autoTopUpWatch` and `pendingAutoTopUps`. */
export const AUTO_TOPUP_PAGE_MAX = 10_000;

/** A page size, checked: an integer from 1 to AUTO_TOPUP_PAGE_MAX (a bug otherwise, thrown). */
export function autoTopUpPage(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > AUTO_TOPUP_PAGE_MAX) {
    throw new RangeError(
      `auto top-up: limit must be an integer from 1 to ${AUTO_TOPUP_PAGE_MAX}, not ${limit}`,
    );
  }
  return limit;
}

/**
 * Settings upsert (bind: account, enabled, threshold, amount, now). A change of any of the three starts a new
 * crossing (the next sweep may charge at once when the balance is below the new threshold); turning it on clears the
 * failures and the reason it was off.
 */
export const SETTINGS_UPSERT = `INSERT INTO auto_topup_settings
  (account_id, enabled, threshold, amount, seq, failures, updated_at) VALUES (?, ?, ?, ?, 0, 0, ?)
  ON CONFLICT (account_id) DO UPDATE SET
  seq = CASE WHEN auto_topup_settings.enabled = excluded.enabled
    AND auto_topup_settings.threshold IS NOT DISTINCT FROM excluded.threshold
    AND auto_topup_settings.amount IS NOT DISTINCT FROM excluded.amount
    THEN auto_topup_settings.seq ELSE auto_topup_settings.seq + 1 END,
  failures = CASE WHEN excluded.enabled = 1 AND auto_topup_settings.enabled = 0 THEN 0
    ELSE auto_topup_settings.failures END,
  disabled_reason = CASE WHEN excluded.enabled = 1 THEN NULL ELSE auto_topup_settings.disabled_reason END,
  enabled = excluded.enabled, threshold = excluded.threshold, amount = excluded.amount,
  updated_at = excluded.updated_at`;

/** Keep the provider's customer, the first one only (bind: account, customer, now). */
export const CUSTOMER_UPSERT = `INSERT INTO auto_topup_settings
  (account_id, enabled, customer_id, seq, failures, updated_at) VALUES (?, 0, ?, 0, 0, ?)
  ON CONFLICT (account_id) DO UPDATE SET
  customer_id = COALESCE(auto_topup_settings.customer_id, excluded.customer_id)`;

/** A saved card: a new crossing, no failures (bind: pm, label, now, account, customer). */
export const CARD_UPDATE = `UPDATE auto_topup_settings
  SET payment_method_id = ?, card_label = ?, updated_at = ?, seq = seq + 1, failures = 0
  WHERE account_id = ? AND customer_id = ?`;

/** Forget the card and turn off (bind: now, account). */
export const CARD_REMOVE = `UPDATE auto_topup_settings
  SET payment_method_id = NULL, card_label = NULL, enabled = 0, seq = seq + 1, updated_at = ?
  WHERE account_id = ?`;

/** Settings that may charge, in account id order after `after` (bind: after, limit); `collate` for PostgreSQL. */
export function watchSql(collate: string): string {
  return `SELECT * FROM auto_topup_settings
  WHERE enabled = 1 AND payment_method_id IS NOT NULL AND threshold IS NOT NULL AND amount IS NOT NULL
  AND account_id ${collate} > ? ORDER BY account_id ${collate} LIMIT ?`;
}

/**
 * The claim (bind: id, now, account, seq, account): the attempt of crossing `seq` is inserted once, only while the
 * settings are still at that crossing and enabled with a card, and the account has no attempt pending.
 */
export const CLAIM_INSERT = `INSERT INTO auto_topup_attempts
  (id, account_id, seq, units, status, created_at)
  SELECT ?, account_id, seq, amount, 'pending', ? FROM auto_topup_settings
  WHERE account_id = ? AND seq = ? AND enabled = 1 AND payment_method_id IS NOT NULL AND amount IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM auto_topup_attempts p WHERE p.account_id = ? AND p.status = 'pending')
  ON CONFLICT (id) DO NOTHING`;

/** Re-arm: the next crossing, once the attempt of this one is finished (bind: account, seq, id). */
export const REARM_UPDATE = `UPDATE auto_topup_settings SET seq = seq + 1
  WHERE account_id = ? AND seq = ?
  AND EXISTS (SELECT 1 FROM auto_topup_attempts a WHERE a.id = ? AND a.status <> 'pending')`;

/** Finish a pending attempt (bind: status, payment_intent, error, now, id). */
export const FINISH_UPDATE = `UPDATE auto_topup_attempts
  SET status = ?, payment_intent = COALESCE(?, payment_intent), error = ?, finished_at = ?
  WHERE id = ? AND status = 'pending'`;

/** Record the provider's payment on a pending attempt (bind: payment_intent, id). */
export const INTENT_UPDATE = `UPDATE auto_topup_attempts SET payment_intent = ? WHERE id = ? AND status = 'pending'`;

/** After a success: no failures (bind: account). */
export const SUCCESS_UPDATE = `UPDATE auto_topup_settings SET failures = 0 WHERE account_id = ?`;

/** After a failure: one more; at `max` in a row, off (bind: max, account). */
export const FAILURE_UPDATE = `UPDATE auto_topup_settings SET failures = failures + 1,
  enabled = CASE WHEN failures + 1 >= ? THEN 0 ELSE enabled END,
  disabled_reason = CASE WHEN enabled = 1 AND failures + 1 >= ? THEN 'failures' ELSE disabled_reason END
  WHERE account_id = ?`;

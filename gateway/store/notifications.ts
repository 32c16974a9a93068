/**
 * Notifications in the store (issue 15 item 2, D30): the records both stores keep and the row mappings they share.
 * An event is inserted once by its id (idempotent across instances); its deliveries form an outbox claimed with a
 * lease (exactly one holder at a time); every attempt is logged for the customer.
 */

/** What an account is told about. */
export type NotificationType =
  | 'allowance.80'
  | 'allowance.100'
  | 'balance.low'
  | 'unlimited.ending'
  | 'key.revoked'
  | 'key.expiring'
  | 'notification.test'
  | 'topup.auto.succeeded'
  | 'topup.auto.failed';

/** An account's choices (defaults when it never saved any: e-mail alerts on, no low-balance threshold). */
export interface NotificationSettings {
  accountId: string;
  emailAlerts: boolean;
  /** Balance in units below which the account is told; null: never. */
  lowBalanceThreshold: number | null;
  /** Whether the next fall below the threshold is told (false once told, until the balance is back at it). */
  lowBalanceArmed: boolean;
  /** Number of the current crossing: part of the low-balance event id. */
  lowBalanceSeq: number;
}

/** The largest page of `Store.lowBalanceWatch`. */
export const WATCH_PAGE_MAX = 10_000;

/** A `lowBalanceWatch` page size, checked: an integer from 1 to WATCH_PAGE_MAX (a bug otherwise, thrown). */
export function watchPageSize(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > WATCH_PAGE_MAX) {
    throw new RangeError(
      `lowBalanceWatch: limit must be an integer from 1 to ${WATCH_PAGE_MAX}, not ${limit}`,
    );
  }
  return limit;
}

/** A customer's webhook endpoint (its secret is never read back). */
export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  createdAt: number;
}

/** One event, its id idempotent: recording the same id twice stores it once. */
export interface NotificationEvent {
  id: string;
  accountId: string;
  type: NotificationType;
  /** JSON of the event's data (the webhook payload's `data`). */
  data: string;
  createdAt: number;
}

/** Where one delivery goes: an e-mail address, or a webhook endpoint id. */
export interface NewDelivery {
  channel: 'email' | 'webhook';
  target: string;
}

/** A delivery claimed by one worker until `leaseUntil`. */
export interface ClaimedDelivery {
  id: string;
  accountId: string;
  channel: 'email' | 'webhook';
  target: string;
  /** Attempts made before this one. */
  attempts: number;
  event: NotificationEvent;
  /** The endpoint's URL and signing secret; null for e-mail or when the endpoint was removed. */
  webhook: { url: string; secret: string } | null;
}

/** How an attempt ended: delivered, retry at a time, or failed for good. */
export type DeliveryNext = { kind: 'delivered' } | { kind: 'retry'; at: number } | { kind: 'failed' };

/** One attempt: when, and the HTTP status or the class of error (never a secret). */
export interface DeliveryAttempt {
  at: number;
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
}

/** A line of the customer's delivery log. */
export interface DeliveryLogEntry extends DeliveryAttempt {
  deliveryId: string;
  eventId: string;
  type: NotificationType;
  channel: 'email' | 'webhook';
  /** The e-mail address, or the endpoint's URL (null once removed). */
  target: string | null;
  /** The attempt's number for its delivery, from 1. */
  attempt: number;
}

/** An Unlimited package (A: keyId set) or plan (B: keyId null) ending at `until`. */
export interface UnlimitedEnding {
  accountId: string;
  keyId: string | null;
  until: number;
}

/** The settings of an account that never saved any. */
export function defaultSettings(accountId: string): NotificationSettings {
  return { accountId, emailAlerts: true, lowBalanceThreshold: null, lowBalanceArmed: true, lowBalanceSeq: 0 };
}

type Row = Record<string, unknown>;
const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A notification_settings row. */
export function toSettings(r: Row): NotificationSettings {
  return {
    accountId: String(r['account_id']),
    emailAlerts: num(r['email_alerts']) === 1,
    lowBalanceThreshold: numOrNull(r['low_balance_threshold']),
    lowBalanceArmed: num(r['low_balance_armed']) === 1,
    lowBalanceSeq: num(r['low_balance_seq']),
  };
}

/** A webhook_endpoints row. */
export function toEndpoint(r: Row): WebhookEndpoint {
  return {
    id: String(r['id']),
    accountId: String(r['account_id']),
    url: String(r['url']),
    createdAt: num(r['created_at']),
  };
}

/** A delivery joined with its event and endpoint (CLAIMED_SELECT). */
export function toClaimed(r: Row): ClaimedDelivery {
  const url = r['url'];
  return {
    id: String(r['id']),
    accountId: String(r['account_id']),
    channel: r['channel'] === 'webhook' ? 'webhook' : 'email',
    target: String(r['target']),
    attempts: num(r['attempts']),
    event: {
      id: String(r['event_id']),
      accountId: String(r['account_id']),
      type: String(r['type']) as NotificationType,
      data: String(r['payload']),
      createdAt: num(r['event_at']),
    },
    webhook: typeof url === 'string' ? { url, secret: String(r['secret']) } : null,
  };
}

/** An attempt joined with its delivery (LOG_SELECT). */
export function toLogEntry(r: Row): DeliveryLogEntry {
  const email = r['channel'] === 'email';
  return {
    deliveryId: String(r['delivery_id']),
    eventId: String(r['event_id']),
    type: String(r['type']) as NotificationType,
    channel: email ? 'email' : 'webhook',
    target: email ? String(r['target']) : typeof r['url'] === 'string' ? r['url'] : null,
    attempt: num(r['attempt']),
    at: num(r['at']),
    ok: num(r['ok']) === 1,
    httpStatus: numOrNull(r['http_status']),
    error: r['error'] === null || r['error'] === undefined ? null : String(r['error']),
  };
}

/** Deliveries of the given ids with their event and endpoint (`?` list appended by the caller). */
export const CLAIMED_SELECT = `SELECT d.id, d.account_id, d.channel, d.target, d.attempts, d.event_id,
  e.type, e.payload, e.created_at AS event_at, w.url, w.secret
  FROM notification_deliveries d
  JOIN notification_events e ON e.id = d.event_id
  LEFT JOIN webhook_endpoints w ON d.channel = 'webhook' AND w.id = d.target
  WHERE d.id IN`;

/** The newest attempts of an account (bind: account id, limit). */
export const LOG_SELECT = `SELECT a.delivery_id, a.at, a.ok, a.http_status, a.error, d.event_id, d.channel, d.target,
  e.type, w.url,
  (SELECT COUNT(*) FROM notification_attempts b WHERE b.delivery_id = a.delivery_id AND b.seq <= a.seq) AS attempt
  FROM notification_attempts a
  JOIN notification_deliveries d ON d.id = a.delivery_id
  JOIN notification_events e ON e.id = d.event_id
  LEFT JOIN webhook_endpoints w ON d.channel = 'webhook' AND w.id = d.target
  WHERE a.account_id = ? ORDER BY a.seq DESC LIMIT ?`;

/** Unlimited packages (A) and plans (B) ending in (from, to] (bind: from, to, from, to). */
export const ENDING_SELECT = `SELECT account_id, id AS key_id, package_until AS until FROM api_keys
  WHERE status = 'active' AND kind = 'unlimited' AND package_until > ? AND package_until <= ?
  UNION ALL
  SELECT id AS account_id, NULL AS key_id, unlimited_until AS until FROM accounts
  WHERE status = 'active' AND unlimited_until > ? AND unlimited_until <= ?`;

/** Settings upsert: a changed threshold re-arms the low-balance alert and starts a new crossing. */
export const SETTINGS_UPSERT = `INSERT INTO notification_settings
  (account_id, email_alerts, low_balance_threshold, low_balance_armed, low_balance_seq) VALUES (?, ?, ?, 1, 0)
  ON CONFLICT (account_id) DO UPDATE SET email_alerts = excluded.email_alerts,
  low_balance_armed = CASE WHEN notification_settings.low_balance_threshold IS NOT DISTINCT FROM
    excluded.low_balance_threshold THEN notification_settings.low_balance_armed ELSE 1 END,
  low_balance_seq = CASE WHEN notification_settings.low_balance_threshold IS NOT DISTINCT FROM
    excluded.low_balance_threshold THEN notification_settings.low_balance_seq
    ELSE notification_settings.low_balance_seq + 1 END,
  low_balance_threshold = excluded.low_balance_threshold`;

/** Arm (bumping the crossing) or disarm the low-balance alert, only from the expected state (bind: see callers). */
export const ARM_UPDATE = `UPDATE notification_settings
  SET low_balance_armed = ?, low_balance_seq = low_balance_seq + ?
  WHERE account_id = ? AND low_balance_seq = ? AND low_balance_armed = ?`;

/** Finish a claimed delivery, only while this owner holds it (bind: status, next_at, id, owner). */
export const FINISH_UPDATE = `UPDATE notification_deliveries
  SET status = ?, attempts = attempts + 1, next_at = ?, lease_until = 0, lease_owner = NULL
  WHERE id = ? AND lease_owner = ? AND status = 'pending'`;

/** Claim due deliveries (bind: owner, leaseUntil, now, now, limit, now); `lock` adds PostgreSQL's SKIP LOCKED. */
export function claimSql(lock: string): string {
  return `UPDATE notification_deliveries SET lease_owner = ?, lease_until = ?
  WHERE id IN (SELECT id FROM notification_deliveries
    WHERE status = 'pending' AND next_at <= ? AND lease_until <= ? ORDER BY next_at LIMIT ? ${lock})
  AND lease_until <= ? RETURNING id`;
}

/**
 * Pruning (bind: before, each statement): attempts and finished deliveries of events older than `before`, then those
 * events once they have no delivery left. A pruned id never comes back: each names a past day, crossing, end or key.
 */
export const PRUNE_SQL = [
  `DELETE FROM notification_attempts WHERE delivery_id IN (SELECT d.id FROM notification_deliveries d
    JOIN notification_events e ON e.id = d.event_id WHERE e.created_at < ? AND d.status <> 'pending')`,
  `DELETE FROM notification_deliveries WHERE status <> 'pending'
    AND event_id IN (SELECT id FROM notification_events WHERE created_at < ?)`,
  `DELETE FROM notification_events WHERE created_at < ?
    AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.event_id = notification_events.id)`,
];

/** The store status of a finished attempt, and when a pending one is due again. */
export function finishState(next: DeliveryNext): { status: string; nextAt: number } {
  if (next.kind === 'retry') return { status: 'pending', nextAt: next.at };
  return { status: next.kind, nextAt: 0 };
}

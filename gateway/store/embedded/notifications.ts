/**
 * Notifications on SQLite: synchronous statements, each write one transaction (so nothing interleaves with the
 * group commit of admissions). Claims are one conditional UPDATE: SQLite has one writer, so two processes on the
 * file never hold the same delivery.
 */
import type Database from 'better-sqlite3';
import {
  ARM_UPDATE,
  CLAIMED_SELECT,
  ENDING_SELECT,
  FINISH_UPDATE,
  LOG_SELECT,
  PRUNE_SQL,
  SETTINGS_UPSERT,
  claimSql,
  defaultSettings,
  finishState,
  toClaimed,
  toEndpoint,
  toLogEntry,
  toSettings,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type DeliveryLogEntry,
  type DeliveryNext,
  type NewDelivery,
  type NotificationEvent,
  type NotificationSettings,
  type UnlimitedEnding,
  type WebhookEndpoint,
} from '../notifications';
import { newId } from '../ids';
import { StoreConflict } from '../types';

type Row = Record<string, unknown>;

const DUE_SELECT = `SELECT 1 FROM notification_deliveries
  WHERE status = 'pending' AND next_at <= ? AND lease_until <= ? LIMIT 1`;

/** The notification tables on one SQLite connection. */
export class EmbeddedNotifications {
  constructor(private readonly db: Database.Database) {}

  private requireAccount(accountId: string): void {
    if (this.db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(accountId) === undefined) {
      throw new StoreConflict('not_found', `account ${accountId} not found`);
    }
  }

  settings(accountId: string): NotificationSettings {
    const row = this.db.prepare('SELECT * FROM notification_settings WHERE account_id = ?').get(accountId);
    return row ? toSettings(row as Row) : defaultSettings(accountId);
  }

  setSettings(accountId: string, emailAlerts: boolean, threshold: number | null): NotificationSettings {
    return this.db
      .transaction(() => {
        this.requireAccount(accountId);
        this.db.prepare(SETTINGS_UPSERT).run(accountId, emailAlerts ? 1 : 0, threshold);
        return this.settings(accountId);
      })
      .immediate();
  }

  watched(after: string | null, limit: number): NotificationSettings[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM notification_settings WHERE low_balance_threshold IS NOT NULL AND account_id > ?
         ORDER BY account_id LIMIT ?`,
      )
      .all(after ?? '', limit) as Row[];
    return rows.map(toSettings);
  }

  arm(accountId: string, seq: number, armed: boolean): boolean {
    const res = this.db.prepare(ARM_UPDATE).run(armed ? 1 : 0, armed ? 1 : 0, accountId, seq, armed ? 0 : 1);
    return res.changes === 1;
  }

  endpoints(accountId: string): WebhookEndpoint[] {
    const rows = this.db
      .prepare('SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id')
      .all(accountId) as Row[];
    return rows.map(toEndpoint);
  }

  addEndpoint(
    accountId: string,
    url: string,
    secret: string,
    max: number,
    now: number,
  ): WebhookEndpoint | null {
    return this.db
      .transaction(() => {
        this.requireAccount(accountId);
        const n = this.db
          .prepare('SELECT COUNT(*) AS n FROM webhook_endpoints WHERE account_id = ?')
          .get(accountId);
        if (Number((n as Row)['n']) >= max) return null;
        const row = { id: newId('wh'), account_id: accountId, url, secret, created_at: now };
        this.db
          .prepare(
            'INSERT INTO webhook_endpoints (id, account_id, url, secret, created_at) VALUES (?, ?, ?, ?, ?)',
          )
          .run(row.id, accountId, url, secret, now);
        return toEndpoint(row);
      })
      .immediate();
  }

  removeEndpoint(accountId: string, id: string): boolean {
    const res = this.db
      .prepare('DELETE FROM webhook_endpoints WHERE id = ? AND account_id = ?')
      .run(id, accountId);
    return res.changes === 1;
  }

  record(event: NotificationEvent, deliveries: NewDelivery[]): boolean {
    return this.db
      .transaction(() => {
        const inserted = this.db
          .prepare(
            `INSERT INTO notification_events (id, account_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (id) DO NOTHING`,
          )
          .run(event.id, event.accountId, event.type, event.data, event.createdAt);
        if (inserted.changes !== 1) return false;
        const add = this.db.prepare(
          `INSERT INTO notification_deliveries (id, event_id, account_id, channel, target, status, attempts, next_at,
           lease_until, lease_owner) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, 0, NULL)`,
        );
        for (const d of deliveries) {
          add.run(newId('dlv'), event.id, event.accountId, d.channel, d.target, event.createdAt);
        }
        return true;
      })
      .immediate();
  }

  claim(owner: string, now: number, leaseMs: number, limit: number): ClaimedDelivery[] {
    // A read first: with nothing due (the common case) no write lock is taken, so the worker's timer never waits
    // on another process's admissions (workers on one file) nor holds them up.
    if (this.db.prepare(DUE_SELECT).get(now, now) === undefined) return [];
    const ids = this.db
      .prepare(claimSql(''))
      .all(owner, now + leaseMs, now, now, limit, now)
      .map((r) => String((r as Row)['id']));
    if (ids.length === 0) return [];
    const rows = this.db.prepare(`${CLAIMED_SELECT} (${ids.map(() => '?').join(', ')})`).all(...ids) as Row[];
    return rows.map(toClaimed);
  }

  finish(id: string, owner: string, attempt: DeliveryAttempt, next: DeliveryNext): boolean {
    const { status, nextAt } = finishState(next);
    return this.db
      .transaction(() => {
        const res = this.db.prepare(FINISH_UPDATE).run(status, nextAt, id, owner);
        if (res.changes !== 1) return false;
        this.db
          .prepare(
            `INSERT INTO notification_attempts (delivery_id, account_id, at, ok, http_status, error)
             SELECT id, account_id, ?, ?, ?, ? FROM notification_deliveries WHERE id = ?`,
          )
          .run(attempt.at, attempt.ok ? 1 : 0, attempt.httpStatus, attempt.error, id);
        return true;
      })
      .immediate();
  }

  log(accountId: string, limit: number): DeliveryLogEntry[] {
    return (this.db.prepare(LOG_SELECT).all(accountId, limit) as Row[]).map(toLogEntry);
  }

  prune(before: number): number {
    return this.db
      .transaction(() => {
        let events = 0;
        for (const sql of PRUNE_SQL) events = this.db.prepare(sql).run(before).changes;
        return events;
      })
      .immediate();
  }

  ending(from: number, to: number): UnlimitedEnding[] {
    const rows = this.db.prepare(ENDING_SELECT).all(from, to, from, to) as Row[];
    return rows.map((r) => ({
      accountId: String(r['account_id']),
      keyId: r['key_id'] === null ? null : String(r['key_id']),
      until: Number(r['until']),
    }));
  }
}

/**
 * Notifications in PostgreSQL (the shared store): one row per event inserted once by its id, the outbox claimed by
 * a conditional UPDATE over `FOR UPDATE SKIP LOCKED`, so two gateway instances never hold the same delivery.
 */
import type { Knex } from 'knex';
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
type Result = { rows: Row[]; rowCount: number | null };

const CLAIM_SQL = claimSql('FOR UPDATE SKIP LOCKED');

/** The notification tables over a knex pool. */
export class SharedNotifications {
  constructor(private readonly knex: Knex) {}

  private async raw(sql: string, bindings: readonly unknown[], db: Knex | Knex.Transaction = this.knex) {
    return (await db.raw(sql, bindings as Knex.RawBinding[])) as Result;
  }

  private async lockAccount(trx: Knex.Transaction, accountId: string): Promise<void> {
    const res = await this.raw('SELECT id FROM accounts WHERE id = ? FOR UPDATE', [accountId], trx);
    if (res.rows.length === 0) throw new StoreConflict('not_found', `account ${accountId} not found`);
  }

  async settings(accountId: string): Promise<NotificationSettings> {
    const res = await this.raw('SELECT * FROM notification_settings WHERE account_id = ?', [accountId]);
    const row = res.rows[0];
    return row ? toSettings(row) : defaultSettings(accountId);
  }

  async setSettings(
    accountId: string,
    emailAlerts: boolean,
    threshold: number | null,
  ): Promise<NotificationSettings> {
    await this.knex.transaction(async (trx) => {
      await this.lockAccount(trx, accountId);
      await this.raw(SETTINGS_UPSERT, [accountId, emailAlerts ? 1 : 0, threshold], trx);
    });
    return this.settings(accountId);
  }

  async watched(after: string | null, limit: number): Promise<NotificationSettings[]> {
    const res = await this.raw(
      // Byte order whatever the database's collation, as on SQLite: the page boundary and the order agree.
      `SELECT * FROM notification_settings WHERE low_balance_threshold IS NOT NULL AND account_id COLLATE "C" > ?
       ORDER BY account_id COLLATE "C" LIMIT ?`,
      [after ?? '', limit],
    );
    return res.rows.map(toSettings);
  }

  async arm(accountId: string, seq: number, armed: boolean): Promise<boolean> {
    const res = await this.raw(ARM_UPDATE, [armed ? 1 : 0, armed ? 1 : 0, accountId, seq, armed ? 0 : 1]);
    return res.rowCount === 1;
  }

  async endpoints(accountId: string): Promise<WebhookEndpoint[]> {
    const res = await this.raw(
      'SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at, id',
      [accountId],
    );
    return res.rows.map(toEndpoint);
  }

  async addEndpoint(
    accountId: string,
    url: string,
    secret: string,
    max: number,
    now: number,
  ): Promise<WebhookEndpoint | null> {
    return this.knex.transaction(async (trx) => {
      // The account's row lock serialises additions: the limit holds under concurrent requests.
      await this.lockAccount(trx, accountId);
      const n = await this.raw(
        'SELECT COUNT(*) AS n FROM webhook_endpoints WHERE account_id = ?',
        [accountId],
        trx,
      );
      if (Number(n.rows[0]?.['n']) >= max) return null;
      const row = { id: newId('wh'), account_id: accountId, url, secret, created_at: now };
      await trx('webhook_endpoints').insert(row);
      return toEndpoint(row);
    });
  }

  async removeEndpoint(accountId: string, id: string): Promise<boolean> {
    const res = await this.raw('DELETE FROM webhook_endpoints WHERE id = ? AND account_id = ?', [
      id,
      accountId,
    ]);
    return res.rowCount === 1;
  }

  async record(event: NotificationEvent, deliveries: NewDelivery[]): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const inserted = await this.raw(
        `INSERT INTO notification_events (id, account_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (id) DO NOTHING`,
        [event.id, event.accountId, event.type, event.data, event.createdAt],
        trx,
      );
      if (inserted.rowCount !== 1) return false;
      if (deliveries.length > 0) {
        await trx('notification_deliveries').insert(
          deliveries.map((d) => ({
            id: newId('dlv'),
            event_id: event.id,
            account_id: event.accountId,
            channel: d.channel,
            target: d.target,
            status: 'pending',
            attempts: 0,
            next_at: event.createdAt,
            lease_until: 0,
            lease_owner: null,
          })),
        );
      }
      return true;
    });
  }

  async claim(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const claimed = await this.raw(CLAIM_SQL, [owner, now + leaseMs, now, now, limit, now]);
    const ids = claimed.rows.map((r) => String(r['id']));
    if (ids.length === 0) return [];
    const res = await this.raw(`${CLAIMED_SELECT} (${ids.map(() => '?').join(', ')})`, ids);
    return res.rows.map(toClaimed);
  }

  async finish(id: string, owner: string, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean> {
    const { status, nextAt } = finishState(next);
    return this.knex.transaction(async (trx) => {
      const res = await this.raw(FINISH_UPDATE, [status, nextAt, id, owner], trx);
      if (res.rowCount !== 1) return false;
      await this.raw(
        `INSERT INTO notification_attempts (delivery_id, account_id, at, ok, http_status, error)
         SELECT id, account_id, ?, ?, ?, ? FROM notification_deliveries WHERE id = ?`,
        [attempt.at, attempt.ok ? 1 : 0, attempt.httpStatus, attempt.error, id],
        trx,
      );
      return true;
    });
  }

  async log(accountId: string, limit: number): Promise<DeliveryLogEntry[]> {
    return (await this.raw(LOG_SELECT, [accountId, limit])).rows.map(toLogEntry);
  }

  async prune(before: number): Promise<number> {
    return this.knex.transaction(async (trx) => {
      let events = 0;
      for (const sql of PRUNE_SQL) events = (await this.raw(sql, [before], trx)).rowCount ?? 0;
      return events;
    });
  }

  async ending(from: number, to: number): Promise<UnlimitedEnding[]> {
    const res = await this.raw(ENDING_SELECT, [from, to, from, to]);
    return res.rows.map((r) => ({
      accountId: String(r['account_id']),
      keyId: r['key_id'] === null ? null : String(r['key_id']),
      until: Number(r['until']),
    }));
  }
}

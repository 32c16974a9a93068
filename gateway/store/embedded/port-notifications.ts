/** The embedded store's notifications part (NotificationStore) over the notification tables (notifications.ts). */
import type Database from 'better-sqlite3';
import {
  watchPageSize,
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
import type { NotificationStore } from '../ports';
import { EmbeddedNotifications } from './notifications';

/** Notification records on one SQLite connection. */
export class EmbeddedNotificationStore implements NotificationStore {
  private readonly n: EmbeddedNotifications;

  constructor(db: Database.Database) {
    this.n = new EmbeddedNotifications(db);
  }

  async notificationSettings(accountId: string): Promise<NotificationSettings> {
    return this.n.settings(accountId);
  }
  async setNotificationSettings(accountId: string, emailAlerts: boolean, threshold: number | null) {
    return this.n.setSettings(accountId, emailAlerts, threshold);
  }
  async lowBalanceWatch(after: string | null, limit: number): Promise<NotificationSettings[]> {
    return this.n.watched(after, watchPageSize(limit));
  }
  async armLowBalance(accountId: string, seq: number, armed: boolean): Promise<boolean> {
    return this.n.arm(accountId, seq, armed);
  }
  async listWebhookEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    return this.n.endpoints(accountId);
  }
  async addWebhookEndpoint(accountId: string, url: string, secret: string, max: number, now: number) {
    return this.n.addEndpoint(accountId, url, secret, max, now);
  }
  async removeWebhookEndpoint(accountId: string, id: string): Promise<boolean> {
    return this.n.removeEndpoint(accountId, id);
  }
  async recordNotification(event: NotificationEvent, deliveries: NewDelivery[]): Promise<boolean> {
    return this.n.record(event, deliveries);
  }
  async claimDeliveries(
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<ClaimedDelivery[]> {
    return this.n.claim(owner, now, leaseMs, limit);
  }
  async finishDelivery(
    id: string,
    owner: string,
    attempt: DeliveryAttempt,
    next: DeliveryNext,
  ): Promise<boolean> {
    return this.n.finish(id, owner, attempt, next);
  }
  async deliveryLog(accountId: string, limit: number): Promise<DeliveryLogEntry[]> {
    return this.n.log(accountId, limit);
  }
  async unlimitedEnding(from: number, to: number): Promise<UnlimitedEnding[]> {
    return this.n.ending(from, to);
  }
  async pruneNotifications(before: number): Promise<number> {
    return this.n.prune(before);
  }
}

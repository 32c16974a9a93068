/** The shared store's notifications part (NotificationStore) over the PostgreSQL tables (notifications.ts). */
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
import type { SharedContext } from './context';
import { SharedNotifications } from './notifications';

/** Notification records of one shared store; PostgreSQL faults leave as StoreUnavailableError. */
export class SharedNotificationStore implements NotificationStore {
  private readonly n: SharedNotifications;

  constructor(private readonly c: SharedContext) {
    this.n = new SharedNotifications(c.knex);
  }

  notificationSettings(accountId: string): Promise<NotificationSettings> {
    return this.c.pg(() => this.n.settings(accountId));
  }
  setNotificationSettings(
    accountId: string,
    emailAlerts: boolean,
    threshold: number | null,
  ): Promise<NotificationSettings> {
    return this.c.pg(() => this.n.setSettings(accountId, emailAlerts, threshold));
  }
  async lowBalanceWatch(after: string | null, limit: number): Promise<NotificationSettings[]> {
    const size = watchPageSize(limit);
    return this.c.pg(() => this.n.watched(after, size));
  }
  armLowBalance(accountId: string, seq: number, armed: boolean): Promise<boolean> {
    return this.c.pg(() => this.n.arm(accountId, seq, armed));
  }
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpoint[]> {
    return this.c.pg(() => this.n.endpoints(accountId));
  }
  addWebhookEndpoint(
    accountId: string,
    url: string,
    secret: string,
    max: number,
    now: number,
  ): Promise<WebhookEndpoint | null> {
    return this.c.pg(() => this.n.addEndpoint(accountId, url, secret, max, now));
  }
  removeWebhookEndpoint(accountId: string, id: string): Promise<boolean> {
    return this.c.pg(() => this.n.removeEndpoint(accountId, id));
  }
  recordNotification(event: NotificationEvent, deliveries: NewDelivery[]): Promise<boolean> {
    return this.c.pg(() => this.n.record(event, deliveries));
  }
  claimDeliveries(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    return this.c.pg(() => this.n.claim(owner, now, leaseMs, limit));
  }
  finishDelivery(id: string, owner: string, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean> {
    return this.c.pg(() => this.n.finish(id, owner, attempt, next));
  }
  deliveryLog(accountId: string, limit: number): Promise<DeliveryLogEntry[]> {
    return this.c.pg(() => this.n.log(accountId, limit));
  }
  unlimitedEnding(from: number, to: number): Promise<UnlimitedEnding[]> {
    return this.c.pg(() => this.n.ending(from, to));
  }
  pruneNotifications(before: number): Promise<number> {
    return this.c.pg(() => this.n.prune(before));
  }
}

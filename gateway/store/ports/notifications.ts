/** The notifications port (D30): settings, webhook endpoints, events and their deliveries. */
import type {
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryLogEntry,
  DeliveryNext,
  NewDelivery,
  NotificationEvent,
  NotificationSettings,
  UnlimitedEnding,
  WebhookEndpoint,
} from '../notifications';

/** Notification records (records in ../notifications.ts). */
export interface NotificationStore {
  /*
   * --- notifications (D30; records in ../notifications.ts) ---
   * Kept in the relational database of either store (SQLite; PostgreSQL), shared by every instance.
   */
  /** The account's settings; defaults (e-mail alerts on, no threshold) when it never saved any. */
  notificationSettings(accountId: string): Promise<NotificationSettings>;
  /** Save them; a changed threshold re-arms the low-balance alert (new crossing). Unknown account → not_found. */
  setNotificationSettings(
    accountId: string,
    emailAlerts: boolean,
    lowBalanceThreshold: number | null,
  ): Promise<NotificationSettings>;
  /**
   * One page of the settings that have a low-balance threshold (the sweep's list), in account id order: at most
   * `limit` (1 to 10,000), those after account `after` (null: from the first). The sweep pages until a short page.
   */
  lowBalanceWatch(after: string | null, limit: number): Promise<NotificationSettings[]>;
  /**
   * Disarm (`armed` false: told for crossing `seq`) or re-arm (true: crossing seq + 1) the low-balance alert, only
   * from the other state at `seq`; false when it was not in it (another instance did it first).
   */
  armLowBalance(accountId: string, seq: number, armed: boolean): Promise<boolean>;
  listWebhookEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  /** Add an endpoint with its signing secret; null when the account has `max` already (atomic). Unknown → not_found. */
  addWebhookEndpoint(
    accountId: string,
    url: string,
    secret: string,
    max: number,
    now: number,
  ): Promise<WebhookEndpoint | null>;
  /** Remove one of the account's endpoints; false when it has no such endpoint. */
  removeWebhookEndpoint(accountId: string, id: string): Promise<boolean>;
  /**
   * Insert the event and its deliveries (due at the event's time) in one transaction, once per event id: true the
   * first time; later calls with the same id (from any instance) change nothing and return false.
   */
  recordNotification(event: NotificationEvent, deliveries: NewDelivery[]): Promise<boolean>;
  /**
   * Claim up to `limit` pending deliveries due at `now` whose lease is free, leasing them to `owner` until
   * now + leaseMs. Exclusive: concurrent claims (any instance) never return the same delivery while its lease holds.
   */
  claimDeliveries(owner: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  /** Log an attempt and set what follows, only while `owner` holds the lease; false (nothing logged) otherwise. */
  finishDelivery(id: string, owner: string, attempt: DeliveryAttempt, next: DeliveryNext): Promise<boolean>;
  /** The account's newest `limit` attempts, newest first. */
  deliveryLog(accountId: string, limit: number): Promise<DeliveryLogEntry[]>;
  /** Active Unlimited packages (A) and plans (B) ending in (from, to]. */
  unlimitedEnding(from: number, to: number): Promise<UnlimitedEnding[]>;
  /** Delete events older than `before` with their finished deliveries and attempts (pending ones stay); how many events. */
  pruneNotifications(before: number): Promise<number>;
}

/**
 * Recording events (D30): one event per id in the store, with one delivery per channel target chosen from the
 * account's settings now (its e-mail when alerts are on, each webhook endpoint). Insert-once: every instance may
 * record the same notice; the store keeps the first.
 */
import type { Clock } from '../core/clock';
import type { NewDelivery, NotificationEvent } from '../store/notifications';
import type { AccountStore, NotificationStore } from '../store/ports';
import { eventId, type Notice } from './events';

/** The store operations recording needs. */
export type NotifierStore = Pick<
  NotificationStore & AccountStore,
  'getAccount' | 'notificationSettings' | 'listWebhookEndpoints' | 'recordNotification'
>;

/** Records notices as events with their deliveries. */
export class Notifier {
  constructor(
    private readonly store: NotifierStore,
    private readonly clock: Clock,
    /** Whether e-mail is sent at all (the config's `email` and an SMTP server). */
    private readonly email: boolean,
  ) {}

  /** Record the notice once; true when this call recorded it (false: already recorded, or no such account). */
  async record(notice: Notice): Promise<boolean> {
    const { store } = this;
    const [account, settings, endpoints] = await Promise.all([
      store.getAccount(notice.accountId),
      store.notificationSettings(notice.accountId),
      store.listWebhookEndpoints(notice.accountId),
    ]);
    // A deleted account is told nothing (its address is a tombstone); a request in flight at its deletion may
    // still cross 80 %.
    if (!account || account.status === 'deleted') return false;
    const deliveries: NewDelivery[] = [];
    if (this.email && settings.emailAlerts) deliveries.push({ channel: 'email', target: account.email });
    for (const e of endpoints) deliveries.push({ channel: 'webhook', target: e.id });
    const event: NotificationEvent = {
      id: eventId(notice.name),
      accountId: notice.accountId,
      type: notice.type,
      data: JSON.stringify(notice.data),
      createdAt: this.clock.now(),
    };
    return store.recordNotification(event, deliveries);
  }
}

/**
 * Notifications (issue 15 item 2, D30), assembled for one gateway process: the notifier (records events once),
 * the allowance watch (request path), the sweep (low balance, Unlimited ending) and the delivery worker, with the
 * two timers started by `start` and stopped by `stop` (close and drain).
 */
import type { Clock } from '../core/clock';
import type { RuleSet } from '../policy/ruleset';
import type { ApiKey } from '../store/types';
import type { AccountStore, NotificationStore, SecurityStore } from '../store/ports';
import { AllowanceWatch } from './allowance';
import type { NotificationsConfig } from './config';
import { revokedNotice, testNotice } from './events';
import { Notifier } from './notifier';
import { sweepOnce } from './sweep';
import { DeliveryWorker, type NoticeMailer } from './worker';

export type { NotificationsConfig } from './config';
export type { AllowanceObserver } from './allowance';
export type { NoticeMailer } from './worker';

/** What notifications need. */
export interface NotificationsDeps {
  store: NotificationStore & AccountStore & Pick<SecurityStore, 'keysExpiring' | 'markKeyExpiryNotified'>;
  rules: RuleSet;
  clock: Clock;
  config: NotificationsConfig;
  /** Null: e-mail is not sent (no SMTP server, or `email: false`). */
  mailer: NoticeMailer | null;
  logger: { warn(o: object, msg?: string): void };
}

/** Notifications of one gateway process. */
export class Notifications {
  readonly notifier: Notifier;
  readonly allowance: AllowanceWatch;
  readonly worker: DeliveryWorker;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(private readonly d: NotificationsDeps) {
    this.notifier = new Notifier(d.store, d.clock, d.mailer !== null);
    const onError = (err: unknown) =>
      d.logger.warn({ err: (err as Error).message }, 'notifications: an event could not be recorded');
    this.allowance = new AllowanceWatch(d.rules, (n) => this.notifier.record(n), onError);
    this.worker = new DeliveryWorker(d);
  }

  /** Whether e-mail alerts are sent at all (an SMTP server and `email: true`). */
  get sendsEmail(): boolean {
    return this.d.mailer !== null;
  }

  /** Whether webhook endpoints may be loopback/private, how many an account may have. */
  get webhookRules(): { allowPrivate: boolean; maxEndpoints: number } {
    const w = this.d.config.webhooks;
    return { allowPrivate: w.allowPrivateTargets, maxEndpoints: w.maxEndpoints };
  }

  /** A key was revoked (any path: the accounts service calls it; `reported`: a leaked-key report). In the background. */
  keyRevoked(key: ApiKey, reason?: 'reported'): void {
    this.notifier
      .record(revokedNotice(key, reason))
      .catch((err: unknown) =>
        this.d.logger.warn({ err: (err as Error).message }, 'notifications: key.revoked not recorded'),
      );
  }

  /** The dashboard's "send test event". */
  sendTest(accountId: string): Promise<boolean> {
    return this.notifier.record(testNotice(accountId));
  }

  /** One sweep now (also run by the timer). */
  sweep(): Promise<void> {
    if (this.sweeping) return this.sweeping;
    const { store, rules, clock } = this.d;
    this.sweeping = sweepOnce({
      store,
      rules,
      clock,
      keyExpiryDays: this.d.config.keyExpiryReminderDays,
      record: (n) => this.notifier.record(n),
    })
      .catch((err: unknown) =>
        this.d.logger.warn({ err: (err as Error).message }, 'notifications: sweep failed'),
      )
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  /** Start the sweep and the delivery worker. */
  start(): void {
    this.worker.start();
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => void this.sweep(), this.d.config.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  /** Stop both timers and wait for the rounds in progress. */
  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    await Promise.all([this.worker.stop(), this.sweeping]);
  }
}

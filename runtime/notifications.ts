/** Notifications of one process (D30), built by the composition root when the dashboard's section configures them. */
import type { Logger } from 'pino';
import type { Mailer } from '../dashboard/mailer';
import type { Clock } from '../gateway/core/clock';
import { Notifications } from '../gateway/notify';
import type { Store } from '../gateway/store/ports';
import type { AppConfig } from './config';

/** What the notifications are built from. */
export interface NotificationsDeps {
  config: AppConfig;
  store: Store;
  clock: Clock;
  logger: Logger;
  /** An injected mailer (tests): mail is then sent even without `dashboard.smtp`. */
  mailer?: Mailer;
}

/**
 * Notifications of this process when the dashboard configures them, with the mailer they share with the dashboard.
 * E-mail is sent only with an SMTP server (or an injected mailer) and `email: true`.
 */
export function notificationsOf(deps: NotificationsDeps, mailer: Mailer | null): Notifications | null {
  const dash = deps.config.dashboard;
  const config = dash?.notifications;
  if (!dash || !config) return null;
  const sends = config.email && (dash.smtp !== undefined || deps.mailer !== undefined);
  return new Notifications({
    store: deps.store,
    rules: deps.config.rules,
    clock: deps.clock,
    config,
    mailer: sends ? mailer : null,
    logger: deps.logger,
  });
}

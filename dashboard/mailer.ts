/**
 * Sending sign-in links: over SMTP (nodemailer) when configured. Without SMTP a link is written to the log only in
 * development mode (`dashboard.development: true`); otherwise the log says a link could not be sent, without it.
 */
import nodemailer from 'nodemailer';
import type pino from 'pino';
import { MAIL_TIMEOUTS } from '../gateway/notify/config';
import type { DashboardConfig } from './config';

/** Sends the dashboard's e-mails: sign-in links (B) and account messages (reset, e-mail change). */
export interface Mailer {
  sendSignInLink(to: string, link: string, expiresMinutes: number): Promise<void>;
  /** An account e-mail with a one-time link in it (password reset, e-mail confirmation); `link` is a secret. */
  sendAccountLink(to: string, subject: string, text: string, link: string): Promise<void>;
  /** A notification (D30): plain text without secrets. */
  sendNotice(to: string, subject: string, text: string): Promise<void>;
  /** False when nothing it sends can reach anyone (no SMTP and not development); absent means it reaches. */
  readonly reaches?: boolean;
}

function text(link: string, minutes: number): string {
  return [
    'Hello,',
    '',
    `Open this link to sign in to your geocoding dashboard. It works once and expires in ${minutes} minutes:`,
    '',
    link,
    '',
    'If you did not ask for it, ignore this e-mail: nobody can sign in without the link.',
  ].join('\n');
}

/** The configured mailer. */
export function createMailer(config: DashboardConfig, logger: pino.Logger): Mailer {
  const smtp = config.smtp;
  if (!smtp && config.development === true) {
    return {
      async sendSignInLink(to, link) {
        // Development mode, no SMTP server: a local demo reads the link from the log (docs/dashboard.md).
        logger.warn({ to, link }, 'dashboard: no SMTP configured; sign-in link written to the log');
      },
      async sendAccountLink(to, subject, _text, link) {
        logger.warn({ to, subject, link }, 'dashboard: no SMTP configured; account link written to the log');
      },
      async sendNotice(to, subject) {
        logger.warn({ to, subject }, 'dashboard: no SMTP configured; a notification was not sent');
      },
    };
  }
  if (!smtp) {
    return {
      reaches: false,
      async sendSignInLink() {
        logger.error(
          'dashboard: no SMTP configured; a sign-in link was not sent (configure dashboard.smtp, or set dashboard.development: true to log links on a local demo)',
        );
      },
      async sendAccountLink(_to, subject) {
        logger.error({ subject }, 'dashboard: no SMTP configured; an account e-mail was not sent');
      },
      async sendNotice(_to, subject) {
        logger.error({ subject }, 'dashboard: no SMTP configured; a notification was not sent');
      },
    };
  }
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    // Every send is bounded (nodemailer's defaults wait minutes): a notification's send must end well inside the
    // delivery lease, or another process could take the delivery over and send it again.
    connectionTimeout: MAIL_TIMEOUTS.connectionMs,
    greetingTimeout: MAIL_TIMEOUTS.greetingMs,
    socketTimeout: MAIL_TIMEOUTS.socketMs,
    ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: smtp.pass ?? '' } } : {}),
  });
  return {
    async sendSignInLink(to, link, minutes) {
      await transport.sendMail({
        from: smtp.from,
        to,
        subject: 'Your sign-in link',
        text: text(link, minutes),
      });
      logger.info({ to }, 'dashboard: sign-in link sent');
    },
    async sendAccountLink(to, subject, body) {
      await transport.sendMail({ from: smtp.from, to, subject, text: body });
      logger.info({ to, subject }, 'dashboard: account e-mail sent');
    },
    async sendNotice(to, subject, body) {
      await transport.sendMail({ from: smtp.from, to, subject, text: body });
      logger.info({ to, subject }, 'dashboard: notification sent');
    },
  };
}

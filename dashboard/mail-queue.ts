/**
 * The dashboard's outgoing e-mail, queued: a request hands its mail over and answers at once, whether or not the
 * address has an account and however slow the mail server is, so neither the time nor the answer tells who has an
 * account (no enumeration). A failed send is logged (its purpose, never its link) and retried after each of
 * `retryDelaysMs`; then it is logged as given up. The queue is in memory: a restart drops what is still pending, and
 * the customer asks again (every form that mails can be sent again).
 */
import type pino from 'pino';

/** Waits before the 2nd, 3rd, … attempt of a failed send (then it is given up). */
export const MAIL_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000];
/** Sends pending at once (first attempts and retries): beyond it a new mail is dropped and logged. */
export const MAIL_QUEUE_LIMIT = 1000;

/** One queued e-mail: what it is for (logged; no address, no link) and how to send it once. */
export interface QueuedMail {
  purpose: string;
  requestId?: string;
  send(): Promise<void>;
}

/** The queue of one dashboard app. */
export class MailQueue {
  private pending = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly logger: pino.Logger,
    private readonly retryDelaysMs: readonly number[] = MAIL_RETRY_DELAYS_MS,
    private readonly limit = MAIL_QUEUE_LIMIT,
  ) {}

  /** Queue a mail: its first attempt starts after the current request's answer is written. */
  enqueue(mail: QueuedMail): void {
    if (this.pending >= this.limit) {
      this.logger.error(
        { purpose: mail.purpose, requestId: mail.requestId },
        'dashboard: mail queue full; e-mail dropped',
      );
      return;
    }
    this.pending++;
    setImmediate(() => void this.attempt(mail, 0));
  }

  /** Resolves once nothing is pending (tests; a graceful stop may wait for it). */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private async attempt(mail: QueuedMail, failures: number): Promise<void> {
    try {
      await mail.send();
      this.done();
    } catch (err) {
      const delay = this.retryDelaysMs[failures];
      const fields = { purpose: mail.purpose, requestId: mail.requestId, attempt: failures + 1 };
      // The error's message only: nodemailer's may name the server, never the link (it is in the body).
      const error = err instanceof Error ? err.message : String(err);
      if (delay === undefined) {
        this.logger.error({ ...fields, err: error }, 'dashboard: e-mail not sent; given up');
        return this.done();
      }
      this.logger.error(
        { ...fields, err: error, retryInMs: delay },
        'dashboard: e-mail not sent; will retry',
      );
      setTimeout(() => void this.attempt(mail, failures + 1), delay).unref();
    }
  }

  private done(): void {
    this.pending--;
    if (this.pending > 0) return;
    for (const w of this.waiters.splice(0)) w();
  }
}

/**
 * The delivery worker, one per gateway process: on a timer (never on the request path) it claims due deliveries
 * under a lease, sends each (e-mail through the mailer, or a signed webhook), and records the attempt: delivered,
 * retried after an exponential back-off, or failed after the last attempt. Two processes never send the same
 * delivery: the store's claim is exclusive while the lease holds, and a finish by a holder whose lease ran out
 * changes nothing.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock';
import type { ClaimedDelivery, DeliveryAttempt, DeliveryNext } from '../store/notifications';
import type { NotificationStore } from '../store/ports';
import type { NotificationsConfig } from './config';
import { emailOf } from './events';
import { postWebhook, signWebhook } from './webhook';

/** What the worker sends e-mail with (the dashboard's mailer implements it). */
export interface NoticeMailer {
  sendNotice(to: string, subject: string, text: string): Promise<void>;
}

/** What the worker needs. */
export interface WorkerDeps {
  store: Pick<NotificationStore, 'claimDeliveries' | 'finishDelivery'>;
  clock: Clock;
  config: NotificationsConfig;
  mailer: NoticeMailer | null;
  logger: { warn(o: object, msg?: string): void };
}

type Result = Omit<DeliveryAttempt, 'at'> & { final?: boolean };

/** The class of a mailer error (nodemailer's code), never its message (it may quote addresses or the server). */
function mailErrorClass(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z_]{1,30}$/.test(code)
    ? `smtp_${code.toLowerCase()}`
    : 'smtp_error';
}

/** Claims and sends deliveries on a timer. */
export class DeliveryWorker {
  /** This process's lease name. */
  readonly owner = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly d: WorkerDeps) {}

  /** Start the timer (unref'd: it never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.d.config.worker.intervalMs);
    this.timer.unref();
  }

  /** Stop the timer and wait for the round in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
  }

  /** One round unless one is running; resolves with the number of deliveries attempted. */
  tick(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.round()
      .catch((err: unknown) => {
        this.d.logger.warn({ err: (err as Error).message }, 'notifications: delivery round failed');
        return 0;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async round(): Promise<number> {
    const { store, clock, config } = this.d;
    const claimed = await store.claimDeliveries(
      this.owner,
      clock.now(),
      config.worker.leaseMs,
      config.worker.batch,
    );
    await Promise.all(claimed.map((c) => this.deliver(c)));
    return claimed.length;
  }

  /** The wait before attempt n + 2, after n + 1 attempts. */
  private backoff(attemptsBefore: number): number {
    const r = this.d.config.retry;
    return Math.min(r.maxDelayMs, Math.round(r.firstDelayMs * r.factor ** attemptsBefore));
  }

  /** Send one delivery; an unexpected fault counts as a failed attempt (so it is retried, and bounded). */
  private async attempt(c: ClaimedDelivery): Promise<Result> {
    try {
      return c.channel === 'email' ? await this.email(c) : await this.webhook(c);
    } catch (err) {
      // Its name only: a message could quote the endpoint's URL, which may carry the customer's token.
      this.d.logger.warn({ error: (err as Error).name, delivery: c.id }, 'notifications: delivery failed');
      return { ok: false, httpStatus: null, error: 'internal' };
    }
  }

  private async deliver(c: ClaimedDelivery): Promise<void> {
    const result = await this.attempt(c);
    const at = this.d.clock.now();
    const last = result.final === true || c.attempts + 1 >= this.d.config.retry.maxAttempts;
    const next: DeliveryNext = result.ok
      ? { kind: 'delivered' }
      : last
        ? { kind: 'failed' }
        : { kind: 'retry', at: at + this.backoff(c.attempts) };
    const attempt = { at, ok: result.ok, httpStatus: result.httpStatus, error: result.error };
    const held = await this.d.store.finishDelivery(c.id, this.owner, attempt, next);
    if (!held)
      this.d.logger.warn({ delivery: c.id }, 'notifications: lease lost before the attempt was recorded');
  }

  private async email(c: ClaimedDelivery): Promise<Result> {
    if (!this.d.mailer) return { ok: false, httpStatus: null, error: 'email_off', final: true };
    const { subject, text } = emailOf(c.event.type, JSON.parse(c.event.data) as Record<string, unknown>);
    try {
      await this.d.mailer.sendNotice(c.target, subject, text);
      return { ok: true, httpStatus: null, error: null };
    } catch (err) {
      return { ok: false, httpStatus: null, error: mailErrorClass(err) };
    }
  }

  private async webhook(c: ClaimedDelivery): Promise<Result> {
    if (!c.webhook) return { ok: false, httpStatus: null, error: 'endpoint_removed', final: true };
    const { event } = c;
    const body = `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(new Date(event.createdAt).toISOString())},"data":${event.data}}`;
    // Wall time, not the gateway's clock: receivers compare it with their own clock (replay window).
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'user-agent': 'geogate-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(ts),
      'webhook-signature': signWebhook(c.webhook.secret, event.id, ts, body),
    };
    const w = this.d.config.webhooks;
    const out = await postWebhook(c.webhook.url, headers, body, {
      timeoutMs: w.timeoutMs,
      maxResponseBytes: w.maxResponseBytes,
      allowPrivate: w.allowPrivateTargets,
    });
    if ('error' in out) return { ok: false, httpStatus: null, error: out.error };
    return { ok: out.status >= 200 && out.status < 300, httpStatus: out.status, error: null };
  }
}

/**
 * The `dashboard.notifications:` config section (issue 15 item 2, D30): absent, nothing is detected or sent.
 * Every key is optional with the default written here; unknown keys are errors (strict).
 */
import { z } from 'zod';

const webhooks = z.strictObject({
  /** Allow endpoints on loopback or private addresses, and plain http to them (an SSRF risk: off by default). */
  allowPrivateTargets: z.boolean().default(false),
  /** Bound of one delivery: connect, send and the answer's status. */
  timeoutMs: z.int().min(100).max(30_000).default(5_000),
  /** Endpoints one account may have. */
  maxEndpoints: z.int().min(1).max(20).default(5),
  /** Bytes of an answer's body read (then ignored) before the connection is closed. */
  maxResponseBytes: z.int().min(0).max(1_048_576).default(4_096),
});

const retry = z.strictObject({
  /** Wait before the second attempt; each later wait is `factor` times the one before, at most `maxDelayMs`. */
  firstDelayMs: z.int().min(1).default(30_000),
  factor: z.number().min(1).max(10).default(2),
  maxDelayMs: z.int().min(1).default(3_600_000),
  /** Attempts per delivery before it is given up (logged as failed). */
  maxAttempts: z.int().min(1).max(20).default(8),
});

const worker = z.strictObject({
  /** How often each gateway process looks for due deliveries. */
  intervalMs: z.int().min(10).max(60_000).default(1_000),
  /** How long a claimed delivery is held before another process may take it (above webhooks.timeoutMs). */
  leaseMs: z.int().min(1_000).max(3_600_000).default(60_000),
  /** Deliveries claimed at a time. */
  batch: z.int().min(1).max(100).default(20),
});

/**
 * Bounds of one e-mail send (the dashboard's nodemailer transport): connecting, the server's greeting, and any
 * silence on the socket. A send therefore ends within about their sum, which the delivery lease must exceed.
 */
export const MAIL_TIMEOUTS = { connectionMs: 10_000, greetingMs: 10_000, socketMs: 20_000 } as const;
const MAIL_SEND_BOUND_MS = MAIL_TIMEOUTS.connectionMs + MAIL_TIMEOUTS.greetingMs + MAIL_TIMEOUTS.socketMs;
/** What a lease keeps above the longest send: a worker finishes and records before another may claim. */
const LEASE_MARGIN_MS = 5_000;

/** The notifications section. */
export const notificationsConfigSchema = z
  .strictObject({
    /** Send alerts by e-mail (to the account's address, through dashboard.smtp) to accounts that keep them on. */
    email: z.boolean().default(true),
    webhooks: webhooks.prefault({}),
    retry: retry.prefault({}),
    worker: worker.prefault({}),
    /** How often low balances and Unlimited packages or plans ending within 7 days are looked for. */
    sweepIntervalMs: z.int().min(10).max(3_600_000).default(60_000),
    /** Days before a key's end date (set by its owner) that the owner is reminded, once per key and end. */
    keyExpiryReminderDays: z.int().min(1).max(90).default(7),
  })
  .superRefine((c, ctx) => {
    // A delivery whose send outlives its lease could be claimed and sent again by another process.
    const longest = Math.max(c.webhooks.timeoutMs, c.email ? MAIL_SEND_BOUND_MS : 0);
    if (c.worker.leaseMs < longest + LEASE_MARGIN_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['worker', 'leaseMs'],
        message: `must be at least ${longest + LEASE_MARGIN_MS} ms: the longest send (${
          c.email ? 'an e-mail, bounded at ' + MAIL_SEND_BOUND_MS + ' ms' : 'a webhook, webhooks.timeoutMs'
        }) plus ${LEASE_MARGIN_MS} ms, so a delivery is never sent twice`,
      });
    }
  });

/** A validated notifications section. */
export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;

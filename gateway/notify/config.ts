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

/** The notifications section. */
export const notificationsConfigSchema = z.strictObject({
  /** Send alerts by e-mail (to the account's address, through dashboard.smtp) to accounts that keep them on. */
  email: z.boolean().default(true),
  webhooks: webhooks.prefault({}),
  retry: retry.prefault({}),
  worker: worker.prefault({}),
  /** How often low balances and Unlimited packages or plans ending within 7 days are looked for. */
  sweepIntervalMs: z.int().min(10).max(3_600_000).default(60_000),
});

/** A validated notifications section. */
export type NotificationsConfig = z.infer<typeof notificationsConfigSchema>;

/** The `dashboard:` config section (zod fragment composed into the whole config by runtime/config.ts) and its type. */
import { statSync } from 'node:fs';
import { extname } from 'node:path';
import { z } from 'zod';
import { notificationsConfigSchema } from '../gateway/notify/config';
import { invoicingConfigSchema } from './invoice-config';

const port = z.int().min(0).max(65535);

const httpUrl = z.string().refine(
  (s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  },
  { message: 'not an http(s) URL' },
);

/** Whether a URL's host is this machine's loopback (localhost, 127.0.0.0/8, ::1): a local demo's address. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Image types a logo or favicon may have, by file extension. */
export const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
};
/** The largest logo or favicon file served (both are read once at start and kept in memory). */
export const IMAGE_MAX_BYTES = 256 * 1024;

/** A readable image file of a known type, at most IMAGE_MAX_BYTES. */
const imageFile = z.string().superRefine((file, ctx) => {
  if (IMAGE_TYPES[extname(file).toLowerCase()] === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `not an image file name: use ${Object.keys(IMAGE_TYPES).join(', ')}`,
    });
    return;
  }
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new Error('not a file');
    size = st.size;
  } catch {
    ctx.addIssue({ code: 'custom', message: `cannot read the file ${JSON.stringify(file)}` });
    return;
  }
  if (size > IMAGE_MAX_BYTES)
    ctx.addIssue({ code: 'custom', message: `larger than ${IMAGE_MAX_BYTES / 1024} KB` });
});

const smtp = z.strictObject({
  host: z.string().min(1),
  port,
  secure: z.boolean().default(false),
  user: z.string().min(1).optional(),
  pass: z.string().min(1).optional(),
  from: z.string().min(3),
});

/** Auto top-up by saved card (dashboard/payments/auto-topup.ts); absent: on, with these defaults. */
const autoTopUp = z.strictObject({
  /** Whether customers may save a card for automatic top-ups. */
  enabled: z.boolean().default(true),
  /** Failed charges in a row after which an account's auto top-up turns off. */
  maxFailures: z.int().min(1).max(20).default(3),
  /** How often each instance reads the balances of accounts with auto top-up on. */
  intervalMs: z.int().min(200).max(3_600_000).default(5_000),
});

const stripe = z.strictObject({
  secretKey: z.string().min(1),
  webhookSecret: z.string().min(1),
  priceCurrency: z.string().regex(/^[a-z]{3}$/, 'a lower-case ISO 4217 code such as "eur"'),
  /** Money units bought by one minor currency unit (A: 1 cent = 100 units of 0.0001 EUR). */
  unitsPerMinorUnit: z.int().min(1).default(100),
  autoTopUp: autoTopUp.optional(),
});

const btcpay = z.strictObject({
  /** The BTCPay Server's address (its Greenfield API is under /api/v1). */
  url: httpUrl,
  storeId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a BTCPay store id'),
  /** A Greenfield API key with "create invoice" and "view invoices" on the store. */
  apiKey: z.string().min(1),
  /** The secret of the store's webhook (sent to {publicUrl}/webhooks/btcpay, event InvoiceSettled). */
  webhookSecret: z.string().min(1),
  priceCurrency: z.string().regex(/^[A-Z]{3}$/, 'an upper-case ISO 4217 code such as "EUR"'),
  /** Money units bought by one minor currency unit (A: 1 cent = 100 units of 0.0001 EUR; B: credits per cent). */
  unitsPerMinorUnit: z.int().min(1).default(100),
});

/** Rule set B's self-serve Unlimited plan: its price and how many days one payment adds. */
const unlimitedPlan = z.strictObject({
  /** The price of one period, e.g. "199.00": whole cents, at least 1.00 (the smallest crypto payment). */
  price: z
    .string()
    .regex(/^(0|[1-9]\d{0,6})\.\d{2}$/, 'a decimal amount with two decimals such as "199.00"')
    .refine((p) => Number(p.replace('.', '')) >= 100, { message: 'at least 1.00' }),
  /** An ISO 4217 currency with cents (EUR, USD, GBP, CHF...). */
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an upper-case ISO 4217 code such as "EUR"')
    .refine((c) => currencyDigits(c) === 2, { message: 'a currency with two decimals (cents)' }),
  /** The days one payment adds (1..3660), 30 unless set. */
  periodDays: z.int().min(1).max(3660).default(30),
});

/** The number of decimals of an ISO 4217 currency (2 for EUR; 0 for JPY), or -1 when Intl does not know it. */
function currencyDigits(code: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits as number;
  } catch {
    return -1;
  }
}

/** The dashboard section of the gateway config (issue 6). */
export const dashboardConfigSchema = z
  .strictObject({
    listen: z.strictObject({ host: z.string().min(1).default('127.0.0.1'), port }),
    /** The address people open; links in e-mails and the Origin check use it. */
    publicUrl: httpUrl,
    sessionSecret: z.string().min(32, 'the session secret needs at least 32 characters'),
    smtp: smtp.optional(),
    /**
     * Development mode: without SMTP, sign-in links are written to the log so a local demo can sign in. Off by
     * default: a link signs in, so it is a secret and never logged otherwise (issue 13).
     */
    development: z.boolean().optional(),
    /** The product name in every page's header and title (issue 15 item 7); default "geogate". */
    productName: z.string().trim().min(1).max(60).optional(),
    /** Plain text at the foot of every page, e.g. the operator's name and address; default "geogate". */
    footer: z.string().trim().min(1).max(500).optional(),
    /** An image file shown before the product name in every page's header (svg, png, webp, jpg; ≤ 256 KB). */
    logo: imageFile.optional(),
    /** The pages' icon (svg, png, ico...; ≤ 256 KB); default the geogate pin. */
    favicon: imageFile.optional(),
    /**
     * Rule set B: the Unlimited plan's price as the credit page shows it (the rule set has none, D17; absent: "priced
     * on request"). Display only: the plan is set up by the operator (admin API). Refused in rule set A, whose
     * package price is part of the rule set.
     */
    unlimitedPlanPrice: z
      .strictObject({
        amount: z.string().regex(/^\d{1,9}(\.\d{1,4})?$/, 'a decimal amount such as "199.00"'),
        currency: z.string().regex(/^[A-Z]{3}$/, 'an upper-case ISO 4217 code such as "EUR"'),
        period: z.enum(['month', 'year']).default('month'),
      })
      .optional(),
    /**
     * Rule set B: the Unlimited plan sold in the dashboard (docs/dashboard.md "Unlimited plan, self-serve"): one
     * payment of `price` (whole cents of `currency`, by card through Stripe or in crypto through BTCPay Server) adds
     * `periodDays` days to the plan. Absent: the plan is set by the operator only. Replaces `unlimitedPlanPrice`.
     */
    unlimitedPlan: unlimitedPlan.optional(),
    /** Invoices: the seller, tax rates per country, reverse charge (dashboard/invoice-config.ts); absent: receipts. */
    invoicing: invoicingConfigSchema.optional(),
    /** Alerts by e-mail and signed webhooks (issue 15 item 2, D30); absent: none. See gateway/notify/config.ts. */
    notifications: notificationsConfigSchema.optional(),
    /** Issue 14 item 6: absent, the dashboard runs with top-ups disabled (the credit page says so). */
    payments: z
      .strictObject({
        provider: z.enum(['test', 'stripe']),
        stripe: stripe.optional(),
        /** Crypto top-ups beside the card flow (D32): a self-hosted BTCPay Server. */
        crypto: z.strictObject({ provider: z.literal('btcpay'), btcpay }).optional(),
      })
      .refine((p) => p.provider !== 'stripe' || p.stripe !== undefined, {
        message: 'provider "stripe" needs a stripe: { secretKey, webhookSecret, priceCurrency } section',
        path: ['stripe'],
      })
      .optional(),
  })
  .strict()
  .refine((c) => c.unlimitedPlan === undefined || c.unlimitedPlanPrice === undefined, {
    message: 'unlimitedPlan sets the price the plan is sold at: remove unlimitedPlanPrice (display only)',
    path: ['unlimitedPlanPrice'],
  })
  // Development mode writes sign-in and account links (secrets) to the log: only for a demo on this machine.
  .refine((c) => c.development !== true || c.smtp !== undefined || isLoopbackUrl(c.publicUrl), {
    message:
      'development: true writes sign-in links to the log, so it needs a loopback publicUrl (localhost, 127.x, [::1]) or an smtp section; a link signs in, and a public dashboard must not log it',
    path: ['development'],
  });

/** A validated dashboard config. */
export type DashboardConfig = z.infer<typeof dashboardConfigSchema>;
/** The validated BTCPay Server settings. */
export type BtcpayConfig = z.infer<typeof btcpay>;
/** The validated self-serve Unlimited plan (rule set B). */
export type UnlimitedPlanConfig = z.infer<typeof unlimitedPlan>;
/** The validated Stripe settings. */
export type StripeConfig = z.infer<typeof stripe>;
/** The validated auto top-up settings. */
export type AutoTopUpConfig = z.infer<typeof autoTopUp>;
/** Auto top-up's settings when the config has none. */
export const AUTO_TOPUP_DEFAULTS: AutoTopUpConfig = autoTopUp.parse({});

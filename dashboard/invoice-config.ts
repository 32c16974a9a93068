/**
 * The `dashboard.invoicing` config section (docs/dashboard.md, "Invoices"): the seller, tax rates per buyer country
 * and reverse charge, checked when the config is read (each problem names its field), and compiled into the
 * InvoicePolicy the store issues invoices with. A reload takes a changed seller or rate for the invoices issued after.
 */
import { z } from 'zod';
import type { RuleSet } from '../gateway/policy/ruleset';
import { euCountryOfVatId, euVatIdProblem, isCountry, type InvoicePolicy } from '../gateway/store/invoices';
import type { DashboardConfig } from './config';

/** "19", "8.1", "5.55", 19, 7.7: a percentage 0..100 with at most two decimals. */
const RATE = /^(0|[1-9]\d?|100)(\.\d{1,2})?$/;

/** A percentage as basis points ("7.7" → 770), or null when it is not one. */
export function rateBasisPoints(raw: string | number): number | null {
  const text = String(raw);
  const m = RATE.exec(text);
  if (!m) return null;
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '.').slice(1).padEnd(2, '0'));
  return bp <= 10_000 ? bp : null;
}

/** A VAT id as the invoices print it: spaces, dots and dashes dropped, upper case. */
export const compactVatId = (s: string): string => s.replace(/[\s.-]/g, '').toUpperCase();

const country = z.string().refine(isCountry, {
  message: 'an ISO 3166-1 alpha-2 country code in capitals, such as "DE"',
});

/** The section's schema (composed into dashboard/config.ts). */
export const invoicingConfigSchema = z
  .strictObject({
    seller: z.strictObject({
      name: z.string().trim().min(1).max(200),
      /** Postal address; lines separated by line breaks (a YAML block `|`). */
      address: z.string().trim().min(1).max(1000),
      vatId: z.string().trim().min(1).max(40).optional(),
      country,
    }),
    /** Tax rate in percent per buyer country ({ DE: 19, FR: "20", LU: "17" }); must name the seller's country. */
    taxRates: z.record(z.string(), z.union([z.number(), z.string()])),
    /** EU business customers in another member state with a VAT id of valid format: no tax, reverse charge. */
    reverseCharge: z.boolean().default(true),
    /** What credits cost when a top-up names no payment in money (rule set B's test payments). */
    creditPrice: z
      .strictObject({
        currency: z.string().regex(/^[A-Z]{3}$/, 'an upper-case ISO 4217 code such as "EUR"'),
        creditsPerMinorUnit: z.int().min(1),
      })
      .optional(),
  })
  .superRefine((c, ctx) => {
    for (const [code, rate] of Object.entries(c.taxRates)) {
      if (!isCountry(code))
        ctx.addIssue({
          code: 'custom',
          path: ['taxRates', code],
          message: 'not an ISO 3166-1 alpha-2 country code',
        });
      else if (rateBasisPoints(rate) === null)
        ctx.addIssue({
          code: 'custom',
          path: ['taxRates', code],
          message: 'a percentage from 0 to 100 with at most two decimals, such as 19 or "8.1"',
        });
    }
    if (c.taxRates[c.seller.country] === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['taxRates', c.seller.country],
        message: `the seller's country (${c.seller.country}) needs its rate: it applies when a buyer's country is unknown`,
      });
    if (c.seller.vatId !== undefined) {
      const id = compactVatId(c.seller.vatId);
      const problem = euVatIdProblem(id);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['seller', 'vatId'], message: problem });
      const of = euCountryOfVatId(id);
      if (of !== null && of !== c.seller.country)
        ctx.addIssue({
          code: 'custom',
          path: ['seller', 'vatId'],
          message: `a ${id.slice(0, 2)} VAT id does not belong to a seller in ${c.seller.country}`,
        });
    }
  });

/** A validated invoicing section. */
export type InvoicingConfig = z.infer<typeof invoicingConfigSchema>;

/**
 * The policy the store issues invoices with, or null when the config has no invoicing section. The credit price (B)
 * is the section's own, else the card provider's, else the crypto provider's (what a credit costs there).
 */
export function invoicePolicy(config: DashboardConfig, rules: RuleSet): InvoicePolicy | null {
  const inv = config.invoicing;
  if (!inv) return null;
  const rates: Record<string, number> = {};
  for (const [code, rate] of Object.entries(inv.taxRates)) rates[code] = rateBasisPoints(rate) ?? 0;
  const stripe = config.payments?.stripe;
  const btcpay = config.payments?.crypto?.btcpay;
  const creditPrice = inv.creditPrice
    ? { currency: inv.creditPrice.currency, unitsPerMinorUnit: inv.creditPrice.creditsPerMinorUnit }
    : stripe
      ? { currency: stripe.priceCurrency.toUpperCase(), unitsPerMinorUnit: stripe.unitsPerMinorUnit }
      : btcpay
        ? { currency: btcpay.priceCurrency, unitsPerMinorUnit: btcpay.unitsPerMinorUnit }
        : null;
  return {
    seller: {
      name: inv.seller.name,
      address: inv.seller.address
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '')
        .join('\n'),
      vatId: inv.seller.vatId === undefined ? null : compactVatId(inv.seller.vatId),
      country: inv.seller.country,
    },
    rates,
    reverseCharge: inv.reverseCharge,
    moneyDecimals: rules.moneyDecimals,
    creditPrice: rules.moneyDecimals === 0 ? creditPrice : null,
  };
}

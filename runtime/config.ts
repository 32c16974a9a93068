/**
 * The whole config file, composed at the root: the gateway's schema with the dashboard's own section. Same names as
 * gateway/config (validateConfig, loadConfigFile, compileConfig) so a caller that runs everything imports from here.
 */
import type { z } from 'zod';
import { dashboardConfigSchema, type DashboardConfig } from '../dashboard/config';
import { compileConfig as compileGatewayConfig, type CompiledConfig } from '../gateway/config/compile';
import { readConfigDocument, validateWith } from '../gateway/config/load';
import { configSchema } from '../gateway/config/schema';

export { ConfigError } from '../gateway/config/load';

/** The gateway's schema plus the dashboard's section (absent: no dashboard). */
export const appConfigSchema = configSchema
  .extend({ dashboard: dashboardConfigSchema.optional() })
  .superRefine((c, ctx) => {
    if (c.policy === 'A' && c.dashboard?.unlimitedPlanPrice) {
      ctx.addIssue({
        code: 'custom',
        path: ['dashboard', 'unlimitedPlanPrice'],
        message:
          'rule set A has no Unlimited plan: its package price is part of the rule set (50 EUR per month)',
      });
    }
    if (c.policy === 'A' && c.dashboard?.unlimitedPlan) {
      ctx.addIssue({
        code: 'custom',
        path: ['dashboard', 'unlimitedPlan'],
        message: 'rule set A sells Unlimited packages from the balance, not a plan: remove this section',
      });
    }
    const d = c.dashboard;
    // B's credits need a price in money for an invoice: the section's, or a card or crypto provider's.
    if (
      c.policy === 'B' &&
      d?.invoicing &&
      !d.invoicing.creditPrice &&
      !d.payments?.stripe &&
      !d.payments?.crypto
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['dashboard', 'invoicing', 'creditPrice'],
        message:
          'rule set B invoices credits in money: give creditPrice { currency, creditsPerMinorUnit } (no card or crypto provider names one)',
      });
    }
  });

/** A validated config before compilation. */
export type AppRawConfig = z.infer<typeof appConfigSchema>;

/** The compiled gateway config plus the dashboard section (null when the config has none). */
export interface AppConfig extends CompiledConfig {
  dashboard: DashboardConfig | null;
}

/** Validate an already-parsed document (env substitution first). */
export function validateConfig(
  doc: unknown,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): AppRawConfig {
  return validateWith(appConfigSchema, doc, file, env);
}

/** Read, substitute and validate a YAML config file. */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): AppRawConfig {
  return validateConfig(readConfigDocument(file), file, env);
}

/** Compile the gateway's part and keep the dashboard's section; error answers point at the dashboard's pages. */
export function compileConfig(raw: AppRawConfig, file: string): AppConfig {
  const dash = raw.dashboard ?? null;
  const base = dash === null ? null : dash.publicUrl.replace(/\/+$/, '');
  return {
    ...compileGatewayConfig(raw, file),
    customerLinks: base === null ? null : { problems: `${base}/problems/`, topUp: `${base}/credit` },
    dashboard: dash,
  };
}

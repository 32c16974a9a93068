/** The accounts service's refusals in the dashboard's words (a customer sees their own account only). */
import { AccountError, InputError, type AccountRefusal, type Feature } from '../../gateway/accounts/errors';
import type { RuleSet } from '../../gateway/policy/ruleset';
import { formatExact, moneyUnit } from '../money';
import { DashboardError, invalidField } from '../errors';

const FEATURE_TEXT: Record<Feature, string> = {
  packages: 'Unlimited is a plan on the account here, not a package',
  plan: 'Unlimited is sold as packages with their own key here',
  whitelist: 'This service identifies requests by key only',
};

const MISSING_TEXT = {
  account: 'No such account',
  key: 'No such key on your account',
  whitelist_entry: 'No such whitelist entry on your account',
} as const;

/** The dashboard error for a refusal. */
export function refusalError(rules: RuleSet, r: AccountRefusal): DashboardError {
  switch (r.code) {
    case 'not_found':
      return new DashboardError('not_found', MISSING_TEXT[r.missing]);
    case 'not_in_rule_set':
      return new DashboardError('not_in_rule_set', FEATURE_TEXT[r.feature]);
    case 'insufficient_balance':
      return new DashboardError(
        'insufficient_balance',
        `The package costs ${formatExact(r.price, moneyUnit(rules))}; your balance is ${formatExact(r.balance, moneyUnit(rules))}. Top up first.`,
      );
  }
}

/** `err` as a DashboardError when it is a refusal of the accounts service, else unchanged. */
export function asDashboardError(rules: RuleSet, err: unknown): unknown {
  if (err instanceof AccountError) return refusalError(rules, err.refusal);
  if (err instanceof InputError) {
    const text = err.detail.charAt(0).toUpperCase() + err.detail.slice(1);
    return invalidField(err.field, text);
  }
  return err;
}

/** Run a call of the accounts service; its refusals become DashboardErrors. */
export async function refusing<T>(rules: RuleSet, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asDashboardError(rules, err);
  }
}

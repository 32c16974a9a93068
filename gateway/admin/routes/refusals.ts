/** The accounts service's refusals as admin problems, in the admin API's words. */
import type { ErrorRequestHandler } from 'express';
import { AccountError, InputError, type AccountRefusal, type Feature } from '../../accounts/errors';
import { formatMoney, type RuleSet } from '../../policy/ruleset';
import { AdminProblem, invalid } from '../problem';

const FEATURE_TEXT: Record<Feature, string> = {
  packages: 'Unlimited is a plan on the account, not a package; use PUT /admin/accounts/{id}/plan',
  plan: 'Unlimited is sold as packages with their own key; use POST /admin/accounts/{id}/packages',
  whitelist: 'accounts have no whitelist; requests are identified by key',
};

const MISSING_TEXT = {
  account: 'no account with this id',
  key: 'no key with this id',
  whitelist_entry: 'the account has no whitelist entry with this id',
} as const;

/** The admin problem for a refusal. Problems never echo ids or other input (D14). */
export function refusalProblem(rules: RuleSet, r: AccountRefusal): AdminProblem {
  switch (r.code) {
    case 'not_found':
      return new AdminProblem('not_found', MISSING_TEXT[r.missing]);
    case 'not_in_rule_set':
      return new AdminProblem('not_in_rule_set', `rule set ${rules.name}: ${FEATURE_TEXT[r.feature]}`);
    case 'insufficient_balance':
      return new AdminProblem(
        'insufficient_balance',
        `the package costs ${formatMoney(rules, r.price)} EUR; the balance is ${formatMoney(rules, r.balance)} EUR`,
      );
  }
}

/** Error middleware: AccountError and InputError become admin problems for the one error renderer. */
export function accountRefusals(rules: RuleSet): ErrorRequestHandler {
  return (err: unknown, _req, _res, next) => {
    if (err instanceof AccountError) return next(refusalProblem(rules, err.refusal));
    if (err instanceof InputError) return next(invalid(err.field, err.detail));
    next(err);
  };
}

/** Helpers shared by admin routes. */
import type { Request } from 'express';
import type { Account, ApiKey, Store } from '../../store/types';
import type { RuleSet } from '../../policy/ruleset';
import { AdminProblem } from '../problem';

/** A path parameter as a string. */
export function param(req: Request, name: string): string {
  const v = (req.params as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : '';
}

/** The account or a 404. Problems never echo ids or other input: a pasted key must not come back (D14). */
export async function loadAccount(store: Store, id: string): Promise<Account> {
  const account = await store.getAccount(id);
  if (!account) throw new AdminProblem('not_found', 'no account with this id');
  return account;
}

/** The key or a 404. */
export async function loadKey(store: Store, id: string): Promise<ApiKey> {
  const key = await store.getKey(id);
  if (!key) throw new AdminProblem('not_found', 'no key with this id');
  return key;
}

/** 404 not_in_rule_set unless the rule set has this feature. */
export function requireFeature(ok: boolean, rules: RuleSet, detail: string): void {
  if (!ok) throw new AdminProblem('not_in_rule_set', `rule set ${rules.name}: ${detail}`);
}

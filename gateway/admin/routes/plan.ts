/** Rule set B: the Unlimited plan as a flag on the account with an end date, set by the operator (D17). */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { operator } from '../actor';
import { route } from '../http';
import { invalid } from '../problem';
import * as v from '../validate';
import { planView } from '../views';
import { param } from './common';

/** The requested plan end: epoch ms for Unlimited, null for credits. */
function parsePlan(body: unknown, now: number): number | null {
  const b = v.parseBody(body, ['plan', 'until']);
  if (b.plan === 'credits') {
    if (b.until !== undefined) throw invalid('until', 'only the unlimited plan has an end date');
    return null;
  }
  if (b.plan === 'unlimited') {
    if (b.until === undefined) throw invalid('until', 'is required for the unlimited plan');
    return v.futureDateTime('until', b.until, now);
  }
  throw invalid(
    'plan',
    b.plan === undefined ? 'is required ("unlimited" or "credits")' : 'must be "unlimited" or "credits"',
  );
}

/** Register PUT /accounts/:id/plan. */
export function planRoutes(router: Router, deps: RouteDeps): void {
  const { rules, clock, accounts } = deps;
  route(router, '/accounts/:id/plan', {
    put: async (req, res) => {
      accounts.require('plan');
      const now = clock.now();
      const until = parsePlan(req.body, now);
      const account = await accounts.account(param(req, 'id'));
      const updated = await accounts.setPlan(account.id, until, operator(req, res));
      res.json({ accountId: updated.id, plan: planView(rules, updated, [], now) });
    },
  });
}

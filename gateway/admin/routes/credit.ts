/** Credit top-ups (D16), exactly once per Idempotency-Key. */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { operator } from '../actor';
import { route } from '../http';
import * as v from '../validate';
import { ledgerView, money } from '../views';
import { param } from './common';

/** Register POST /accounts/:id/credit: 201 on a new top-up, 200 with the same entry on a replay. */
export function creditRoutes(router: Router, deps: RouteDeps): void {
  const { rules, accounts } = deps;
  route(router, '/accounts/:id/credit', {
    post: async (req, res) => {
      const idem = v.idempotencyKey(req.get('Idempotency-Key'));
      const amount = v.amount(rules, v.parseBody(req.body, ['amount']).amount);
      const account = await accounts.account(param(req, 'id'));
      const result = await accounts.topUp(account.id, amount, idem, operator(req, res));
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(result.replayed ? 200 : 201).json({
        accountId: account.id,
        entry: ledgerView(rules, result.entry),
        balance: money(rules, result.balance),
        replayed: result.replayed,
      });
    },
  });
}

/** Credit top-ups (D16), exactly once per Idempotency-Key. */
import type { Router } from 'express';
import type { AdminDeps } from '../deps';
import { route } from '../http';
import * as v from '../validate';
import { ledgerView, money } from '../views';
import { loadAccount, param } from './common';

/** Register POST /accounts/:id/credit: 201 on a new top-up, 200 with the same entry on a replay. */
export function creditRoutes(router: Router, deps: AdminDeps): void {
  const { store, rules, clock } = deps;
  route(router, '/accounts/:id/credit', {
    post: async (req, res) => {
      const idem = v.idempotencyKey(req.get('Idempotency-Key'));
      const amount = v.amount(rules, v.parseBody(req.body, ['amount']).amount);
      const account = await loadAccount(store, param(req, 'id'));
      const result = await store.credit(account.id, amount, idem, clock.now());
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

/** Rule set A: buying an Unlimited package from the balance (D17). */
import type { Router } from 'express';
import { formatMoney } from '../../policy/ruleset';
import { StoreConflict } from '../../store/types';
import type { AdminDeps } from '../deps';
import { route } from '../http';
import { addCalendarMonth } from '../month';
import { AdminProblem } from '../problem';
import * as v from '../validate';
import { iso, keyView, money } from '../views';
import { loadAccount, param, requireFeature } from './common';
import { newKey } from './keys';

/** Register POST /accounts/:id/packages: debit the package price and create its Unlimited key, atomically. */
export function packageRoutes(router: Router, deps: AdminDeps): void {
  const { store, rules, clock, pepper } = deps;
  route(router, '/accounts/:id/packages', {
    post: async (req, res) => {
      requireFeature(
        rules.unlimited === 'package-key',
        rules,
        'Unlimited is a plan on the account, not a package; use PUT /admin/accounts/{id}/plan',
      );
      const b = v.parseBody(req.body, ['label']);
      const given = b.label === undefined ? null : v.label(b.label);
      const account = await loadAccount(store, param(req, 'id'));
      const now = clock.now();
      const until = addCalendarMonth(now);
      const label = given ?? `Unlimited until ${iso(until)?.slice(0, 10)}`;
      const { key, input } = newKey(pepper, {
        accountId: account.id,
        label,
        kind: 'unlimited',
        packageUntil: until,
      });
      const price = rules.limits.packagePrice;
      const bought = await store.buyPackage(account.id, price, input, now).catch((err: unknown) => {
        if (!(err instanceof StoreConflict && err.reason === 'insufficient_balance')) throw err;
        throw new AdminProblem(
          'insufficient_balance',
          `the package costs ${formatMoney(rules, price)} EUR; the balance is ${formatMoney(rules, account.balance)} EUR`,
        );
      });
      res.setHeader('Cache-Control', 'no-store');
      res
        .status(201)
        .location(`/admin/keys/${bought.key.id}`)
        .json({
          ...keyView(bought.key, now),
          key,
          price: money(rules, price),
          balance: money(rules, bought.balance),
        });
    },
  });
}

/** Rule set A: buying an Unlimited package from the balance (D17). */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { operator } from '../actor';
import { route } from '../http';
import * as v from '../validate';
import { keyView, money } from '../views';
import { param } from './common';

/** Register POST /accounts/:id/packages: debit the package price and create its Unlimited key, atomically. */
export function packageRoutes(router: Router, deps: RouteDeps): void {
  const { rules, clock, accounts } = deps;
  route(router, '/accounts/:id/packages', {
    post: async (req, res) => {
      accounts.require('packages');
      const b = v.parseBody(req.body, ['label']);
      const given = b.label === undefined ? null : v.label(b.label);
      const account = await accounts.account(param(req, 'id'));
      const bought = await accounts.buyPackage(account, given, operator(req, res));
      res.setHeader('Cache-Control', 'no-store');
      res
        .status(201)
        .location(`/admin/keys/${bought.key.id}`)
        .json({
          ...keyView(bought.key, clock.now()),
          key: bought.secret,
          googleKey: bought.googleKey,
          price: money(rules, bought.price),
          balance: money(rules, bought.balance),
        });
    },
  });
}

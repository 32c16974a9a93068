/** Rule set B: whitelist entries (D18). */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { operator } from '../actor';
import { route } from '../http';
import { AdminProblem } from '../problem';
import * as v from '../validate';
import { whitelistView } from '../views';
import { param } from './common';

/** Register the whitelist routes. */
export function whitelistRoutes(router: Router, deps: RouteDeps): void {
  const { accounts } = deps;

  route(router, '/accounts/:id/whitelist', {
    post: async (req, res) => {
      accounts.require('whitelist');
      const b = v.parseBody(req.body, ['address']);
      if (typeof b.address !== 'string') {
        throw new AdminProblem(
          'invalid_parameter',
          b.address === undefined ? 'address: is required' : 'address: must be a string',
          'address',
        );
      }
      const cidr = accounts.whitelistCidr(b.address);
      const account = await accounts.account(param(req, 'id'));
      res.status(201).json(whitelistView(await accounts.addWhitelist(account.id, cidr, operator(req, res))));
    },
  });

  route(router, '/accounts/:id/whitelist/:entryId', {
    delete: async (req, res) => {
      accounts.require('whitelist');
      const account = await accounts.account(param(req, 'id'));
      await accounts.removeWhitelist(account.id, param(req, 'entryId'), operator(req, res));
      res.status(204).end();
    },
  });
}

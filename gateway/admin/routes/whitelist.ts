/** Rule set B: whitelist entries (D18). */
import type { Router } from 'express';
import type { AdminDeps } from '../deps';
import { normaliseWhitelistAddress } from '../address';
import { route } from '../http';
import { AdminProblem } from '../problem';
import * as v from '../validate';
import { whitelistView } from '../views';
import { loadAccount, param, requireFeature } from './common';

const NO_WHITELIST = 'accounts have no whitelist; requests are identified by key';

/** Register the whitelist routes. */
export function whitelistRoutes(router: Router, deps: AdminDeps): void {
  const { store, rules, clock } = deps;

  route(router, '/accounts/:id/whitelist', {
    post: async (req, res) => {
      requireFeature(rules.whitelist, rules, NO_WHITELIST);
      const b = v.parseBody(req.body, ['address']);
      if (typeof b.address !== 'string') {
        throw new AdminProblem(
          'invalid_parameter',
          b.address === undefined ? 'address: is required' : 'address: must be a string',
          'address',
        );
      }
      const cidr = normaliseWhitelistAddress(b.address, rules.limits.whitelistMinIpv6Prefix);
      const account = await loadAccount(store, param(req, 'id'));
      const entry = await store.addWhitelist(account.id, cidr, clock.now());
      res.status(201).json(whitelistView(entry));
    },
  });

  route(router, '/accounts/:id/whitelist/:entryId', {
    delete: async (req, res) => {
      requireFeature(rules.whitelist, rules, NO_WHITELIST);
      const account = await loadAccount(store, param(req, 'id'));
      const entryId = param(req, 'entryId');
      const entries = await store.listWhitelist(account.id);
      if (!entries.some((e) => e.id === entryId)) {
        throw new AdminProblem('not_found', 'the account has no whitelist entry with this id');
      }
      await store.removeWhitelist(account.id, entryId);
      res.status(204).end();
    },
  });
}

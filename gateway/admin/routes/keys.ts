/** API keys: creation (the only time a key is shown, D14), detail with IP slots, revocation. */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { operator } from '../actor';
import { route } from '../http';
import { InputError } from '../../accounts/errors';
import { invalid } from '../problem';
import * as v from '../validate';
import { keyView, restrictionsView, slotView } from '../views';
import { param } from './common';

/** Register the key routes. */
export function keyRoutes(router: Router, deps: RouteDeps): void {
  const { clock, accounts } = deps;

  route(router, '/accounts/:id/keys', {
    post: async (req, res) => {
      const b = v.parseBody(req.body, ['label']);
      const given = b.label === undefined ? null : v.label(b.label);
      const account = await accounts.account(param(req, 'id'));
      const created = await accounts.createKey(account.id, given, operator(req, res));
      res.setHeader('Cache-Control', 'no-store');
      res
        .status(201)
        .location(`/admin/keys/${created.key.id}`)
        .json({ ...keyView(created.key, clock.now()), key: created.secret, googleKey: created.googleKey });
    },
  });

  route(router, '/keys/:id', {
    get: async (req, res) => {
      const detail = await accounts.keyDetail(await accounts.key(param(req, 'id')));
      res.json({
        ...keyView(detail.key, clock.now()),
        slotCapacity: detail.slotCapacity,
        slots: detail.slots.map(slotView),
      });
    },
    // Rename (issue 15 item 4): `label` is required in the body; null removes it where the rule set allows.
    patch: async (req, res) => {
      const b = v.parseBody(req.body, ['label']);
      if (b.label === undefined) throw invalid('label', 'is required (a string, or null for no label)');
      const label = b.label === null ? null : v.label(b.label);
      const key = await accounts.key(param(req, 'id'));
      const renamed = await accounts.renameKey(key, label, operator(req, res)).catch((err: unknown) => {
        throw err instanceof InputError ? invalid(err.field, err.detail) : err;
      });
      res.json(keyView(renamed, clock.now()));
    },
  });

  // Restrictions (issue 15 item 4, D29): read and replace a key's allowed pages and addresses; empty lists clear.
  route(router, '/keys/:id/restrictions', {
    get: async (req, res) => {
      res.json(restrictionsView(await accounts.key(param(req, 'id'))));
    },
    put: async (req, res) => {
      const b = v.parseBody(req.body, ['referrers', 'cidrs']);
      const key = await accounts.key(param(req, 'id'));
      const changed = await accounts.restrictKey(key, b, operator(req, res)).catch((err: unknown) => {
        throw err instanceof InputError ? invalid(err.field, err.detail) : err;
      });
      res.json(restrictionsView(changed));
    },
  });

  route(router, '/keys/:id/revoke', {
    post: async (req, res) => {
      v.parseBody(req.body, []);
      const key = await accounts.key(param(req, 'id'));
      res.json(keyView(await accounts.revokeKey(key, operator(req, res)), clock.now()));
    },
  });
}

/** API keys: creation (the only time a key is shown, D14), detail with IP slots, revocation. */
import type { Router } from 'express';
import type { RouteDeps } from '../deps';
import { operator } from '../actor';
import { route } from '../http';
import { InputError } from '../../accounts/errors';
import { invalid } from '../problem';
import * as v from '../validate';
import { burstView, keyView, restrictionsView, slotView } from '../views';
import { MAX_BURST } from '../../store/checks';
import type { KeyBurst } from '../../store/types';
import { param } from './common';

/** Register the key routes. */
export function keyRoutes(router: Router, deps: RouteDeps): void {
  const { clock, accounts } = deps;

  route(router, '/accounts/:id/keys', {
    post: async (req, res) => {
      const b = v.parseBody(req.body, ['label', 'test', 'expiresAt']);
      const given = b.label === undefined ? null : v.label(b.label);
      if (b.test !== undefined && typeof b.test !== 'boolean') throw invalid('test', 'must be true or false');
      const expiresAt =
        b.expiresAt === undefined || b.expiresAt === null
          ? null
          : v.futureDateTime('expiresAt', b.expiresAt, clock.now());
      const account = await accounts.account(param(req, 'id'));
      const created = await accounts.createKey(account.id, given, operator(req, res), {
        test: b.test === true,
        expiresAt,
      });
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
        burst: burstView(detail.key),
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

  // Rotation (D39): a new secret, shown once; the old one works `overlapSeconds` more (0 to 7 days, default 0).
  route(router, '/keys/:id/rotate', {
    post: async (req, res) => {
      const b = v.parseBody(req.body, ['overlapSeconds']);
      const overlap = b.overlapSeconds ?? 0;
      if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 0 || overlap > 7 * 86_400) {
        throw invalid('overlapSeconds', 'must be a whole number of seconds from 0 to 604800 (7 days)');
      }
      const key = await accounts.key(param(req, 'id'));
      const rotated = await accounts.rotateKey(key, overlap * 1000, operator(req, res));
      res.setHeader('Cache-Control', 'no-store');
      res.json({ ...keyView(rotated.key, clock.now()), key: rotated.secret, googleKey: rotated.googleKey });
    },
  });

  // The owner's end date: an ISO 8601 date-time in the future, or null to clear it.
  route(router, '/keys/:id/expiry', {
    put: async (req, res) => {
      const b = v.parseBody(req.body, ['expiresAt']);
      if (b.expiresAt === undefined)
        throw invalid('expiresAt', 'is required (a date-time, or null for none)');
      const at = b.expiresAt === null ? null : v.futureDateTime('expiresAt', b.expiresAt, clock.now());
      const key = await accounts.key(param(req, 'id'));
      res.json(keyView(await accounts.setKeyExpiry(key, at, operator(req, res)), clock.now()));
    },
  });

  // Burst limits of the key's own: a whole number of requests per second and per minute (from 1), or null for the
  // deployment's key limit; both null clear them.
  route(router, '/keys/:id/burst', {
    get: async (req, res) => {
      res.json(burstView(await accounts.key(param(req, 'id'))));
    },
    put: async (req, res) => {
      const b = v.parseBody(req.body, ['perSecond', 'perMinute']);
      const burst: KeyBurst = {};
      for (const field of ['perSecond', 'perMinute'] as const) {
        const value = b[field];
        if (value === undefined || value === null) continue;
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_BURST) {
          throw invalid(
            field,
            `must be a whole number of requests from 1 to ${MAX_BURST}, or null for the deployment's limit`,
          );
        }
        burst[field] = value;
      }
      const key = await accounts.key(param(req, 'id'));
      const changed = await accounts.setKeyBurst(key, burst, operator(req, res)).catch((err: unknown) => {
        throw err instanceof InputError ? invalid(err.field, err.detail) : err;
      });
      res.json(burstView(changed));
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

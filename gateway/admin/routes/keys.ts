/** API keys: creation (the only time a key is shown, D14), detail with IP slots, revocation. */
import type { Router } from 'express';
import { generateKey, hashKey, keyPrefix } from '../../core/keys';
import type { NewKey } from '../../store/types';
import type { AdminDeps } from '../deps';
import { route } from '../http';
import * as v from '../validate';
import { keyView, kindAt, slotView } from '../views';
import { loadAccount, loadKey, param } from './common';

/** A fresh key and what the store keeps of it (the HMAC under the pepper and the display prefix). */
export function newKey(
  pepper: string,
  fields: Omit<NewKey, 'hash' | 'prefix'>,
): { key: string; input: NewKey } {
  const key = generateKey();
  return { key, input: { ...fields, hash: hashKey(key, pepper), prefix: keyPrefix(key) } };
}

/** Register the key routes. */
export function keyRoutes(router: Router, deps: AdminDeps): void {
  const { store, rules, clock, pepper } = deps;

  route(router, '/accounts/:id/keys', {
    post: async (req, res) => {
      const b = v.parseBody(req.body, ['label']);
      const given = b.label === undefined ? null : v.label(b.label);
      const account = await loadAccount(store, param(req, 'id'));
      // A rule set that labels every key (A: "a label is set on each key"): without one, number it ("Key 3").
      const label =
        given ?? (rules.keyLabelRequired ? `Key ${(await store.listKeys(account.id)).length + 1}` : null);
      const { key, input } = newKey(pepper, {
        accountId: account.id,
        label,
        kind: 'payg',
        packageUntil: null,
      });
      const created = await store.createKey(input, clock.now());
      res.setHeader('Cache-Control', 'no-store');
      res
        .status(201)
        .location(`/admin/keys/${created.id}`)
        .json({ ...keyView(created, clock.now()), key });
    },
  });

  route(router, '/keys/:id', {
    get: async (req, res) => {
      const key = await loadKey(store, param(req, 'id'));
      const now = clock.now();
      const { limits, slotMode } = rules;
      const slots = await store.listSlots(`key:${key.id}`, slotMode, limits.slotWindowMs, now);
      const capacity = kindAt(key, now) === 'unlimited' ? limits.slotsUnlimited : limits.slotsPayg;
      res.json({ ...keyView(key, now), slotCapacity: capacity, slots: slots.map(slotView) });
    },
  });

  route(router, '/keys/:id/revoke', {
    post: async (req, res) => {
      v.parseBody(req.body, []);
      const key = await loadKey(store, param(req, 'id'));
      res.json(keyView(await store.revokeKey(key.id, clock.now()), clock.now()));
    },
  });
}

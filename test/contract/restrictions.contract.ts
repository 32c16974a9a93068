/**
 * Contract: key restrictions (D29) stored with the key and carried in its identity. The store stores what it is
 * given; the accounts service canonicalises first (normaliseRestrictions, as here), and refuses malformed input
 * before the store (test/integration/admin/key-restrictions.test.ts).
 */
import { normaliseRestrictions } from '../../gateway/policy/restrictions';
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, T0, uid } from './helpers';

/** setKeyRestrictions and what findKeyByHash / getKey / listKeys carry. */
export function restrictionRules(h: StoreHolder): void {
  describe('key restrictions', () => {
    it('stores canonical restrictions with the key; findKeyByHash carries them at once (cache invalidated)', async () => {
      const a = await account(h.store);
      const hash = uid('hash_');
      const k = await h.store.createKey({ accountId: a.id, hash, prefix: 'gk_r', kind: 'payg' }, T0);
      expect(k.restrictions).toBeUndefined();
      expect((await h.store.findKeyByHash(hash))?.key.restrictions).toBeUndefined(); // cached where the store caches
      const set = await h.store.setKeyRestrictions(
        k.id,
        normaliseRestrictions({
          referrers: ['HTTPS://*.Example.COM/maps/*', 'localhost:3000', 'https://*.example.com/maps/'],
          cidrs: ['203.0.113.77/24', '2001:DB8::1/64'],
        }),
      );
      const want = {
        referrers: ['https://*.example.com/maps/', 'localhost:3000'],
        cidrs: ['203.0.113.0/24', '2001:db8::/64'],
      };
      expect(set).toEqual({ ...k, restrictions: want });
      expect(await h.store.getKey(k.id)).toEqual(set);
      expect((await h.store.listKeys(a.id))[0]).toEqual(set);
      expect((await h.store.findKeyByHash(hash))?.key.restrictions).toEqual(want);
    });

    it('clears restrictions with null or empty lists; the identity drops them at once', async () => {
      const a = await account(h.store);
      const hash = uid('hash_');
      const k = await h.store.createKey({ accountId: a.id, hash, prefix: 'gk_r', kind: 'payg' }, T0);
      await h.store.setKeyRestrictions(
        k.id,
        normaliseRestrictions({ referrers: [], cidrs: ['198.51.100.7'] }),
      );
      expect((await h.store.findKeyByHash(hash))?.key.restrictions).toEqual({
        referrers: [],
        cidrs: ['198.51.100.7/32'],
      });
      const cleared = await h.store.setKeyRestrictions(k.id, { referrers: [], cidrs: [] });
      expect(cleared.restrictions).toBeUndefined();
      expect(cleared).toEqual(k);
      expect((await h.store.findKeyByHash(hash))?.key.restrictions).toBeUndefined();
      await h.store.setKeyRestrictions(k.id, { referrers: ['example.org'], cidrs: [] });
      expect((await h.store.setKeyRestrictions(k.id, null)).restrictions).toBeUndefined();
      expect((await h.store.findKeyByHash(hash))?.key.restrictions).toBeUndefined();
    });

    it('stores restrictions as given: the accounts service canonicalises them', async () => {
      const a = await account(h.store);
      const k = await h.store.createKey(
        { accountId: a.id, hash: uid('hash_'), prefix: 'gk_r', kind: 'payg' },
        T0,
      );
      const given = { referrers: ['Example.ORG'], cidrs: ['203.0.113.77/24'] };
      expect((await h.store.setKeyRestrictions(k.id, given)).restrictions).toEqual(given);
      expect((await h.store.getKey(k.id))?.restrictions).toEqual(given);
    });

    it('sets restrictions on a revoked key; refuses an unknown key (not_found)', async () => {
      const a = await account(h.store);
      const k = await h.store.createKey(
        { accountId: a.id, hash: uid('hash_'), prefix: 'gk_r', kind: 'payg' },
        T0,
      );
      await h.store.revokeKey(k.id, T0 + 1);
      const r = await h.store.setKeyRestrictions(k.id, { referrers: ['example.org'], cidrs: [] });
      expect(r.status).toBe('revoked');
      expect(r.restrictions).toEqual({ referrers: ['example.org'], cidrs: [] });
      await expectConflict(h.store.setKeyRestrictions('key_nope', null), 'not_found');
      // A refused change changes nothing.
      expect((await h.store.getKey(k.id))?.restrictions).toEqual({ referrers: ['example.org'], cidrs: [] });
    });
  });
}

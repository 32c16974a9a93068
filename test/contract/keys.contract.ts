/** Contract: API keys (spec 3, D14, D19) and whitelist entries (rule set B, D3, D18). */
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, T0, uid } from './helpers';

/** Key management and identification. */
export function keyRules(h: StoreHolder): void {
  describe('keys', () => {
    it('creates a key, finds it with its account by hash, and lists the account keys oldest first', async () => {
      const a = await account(h.store, 7);
      const hash = uid('hash_');
      const k = await h.store.createKey(
        { accountId: a.id, hash, prefix: 'gk_abcde', label: 'prod', kind: 'payg' },
        T0,
      );
      expect(k).toEqual({
        id: k.id,
        accountId: a.id,
        prefix: 'gk_abcde',
        label: 'prod',
        kind: 'payg',
        packageUntil: null,
        status: 'active',
        createdAt: T0,
        revokedAt: null,
      });
      expect(k.id).toMatch(/^key_/);
      expect(await h.store.findKeyByHash(hash)).toEqual({ key: k, account: a });
      expect(await h.store.getKey(k.id)).toEqual(k);
      const k2 = await h.store.createKey(
        { accountId: a.id, hash: uid('hash_'), prefix: 'gk_2', kind: 'payg' },
        T0 + 1,
      );
      expect((await h.store.listKeys(a.id)).map((x) => x.id)).toEqual([k.id, k2.id]);
      expect(await h.store.findKeyByHash('no-such-hash')).toBeNull();
      expect(await h.store.getKey('key_nope')).toBeNull();
    });

    it('shows account changes through findKeyByHash (D8: suspension)', async () => {
      const a = await account(h.store);
      const hash = uid('hash_');
      await h.store.createKey({ accountId: a.id, hash, prefix: 'gk_s', kind: 'payg' }, T0);
      await h.store.setAccountStatus(a.id, 'suspended');
      expect((await h.store.findKeyByHash(hash))?.account.status).toBe('suspended');
      await h.store.credit(a.id, 3, null, T0);
      expect((await h.store.findKeyByHash(hash))?.account.balance).toBe(3);
    });

    it('revokes a key: findKeyByHash still returns it as revoked; a second revoke is already_revoked', async () => {
      const a = await account(h.store);
      const hash = uid('hash_');
      const k = await h.store.createKey({ accountId: a.id, hash, prefix: 'gk_r', kind: 'payg' }, T0);
      const r = await h.store.revokeKey(k.id, T0 + 10);
      expect(r).toEqual({ ...k, status: 'revoked', revokedAt: T0 + 10 });
      expect((await h.store.findKeyByHash(hash))?.key).toEqual(r);
      await expectConflict(h.store.revokeKey(k.id, T0 + 20), 'already_revoked');
      expect((await h.store.getKey(k.id))?.revokedAt).toBe(T0 + 10);
      await expectConflict(h.store.revokeKey('key_nope', T0), 'not_found');
    });

    it('renames a key (active or revoked, to a label or none); findKeyByHash sees the new label; unknown → not_found', async () => {
      const a = await account(h.store);
      const hash = uid('hash_');
      const k = await h.store.createKey(
        { accountId: a.id, hash, prefix: 'gk_l', label: 'old', kind: 'payg' },
        T0,
      );
      expect((await h.store.findKeyByHash(hash))?.key.label).toBe('old'); // now cached where the store caches
      const renamed = await h.store.setKeyLabel(k.id, 'new, "name"');
      expect(renamed).toEqual({ ...k, label: 'new, "name"' });
      expect(await h.store.getKey(k.id)).toEqual(renamed);
      expect((await h.store.findKeyByHash(hash))?.key.label).toBe('new, "name"');
      await h.store.revokeKey(k.id, T0 + 1);
      expect((await h.store.setKeyLabel(k.id, null)).label).toBeNull();
      expect((await h.store.getKey(k.id))?.status).toBe('revoked');
      await expectConflict(h.store.setKeyLabel('key_nope', 'x'), 'not_found');
    });

    it('refuses a key for an unknown account (not_found)', async () => {
      await expectConflict(
        h.store.createKey({ accountId: 'acc_nope', hash: uid('hash_'), prefix: 'gk_x', kind: 'payg' }, T0),
        'not_found',
      );
    });
  });
}

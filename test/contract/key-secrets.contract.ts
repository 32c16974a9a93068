/** Contract: test keys (D40), rotation with an overlap, the owner's end date and revocation by hash (D39). */
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, HOUR, T0, uid } from './helpers';

/** A key's secrets. */
export function keySecretRules(h: StoreHolder): void {
  describe('key secrets', () => {
    const newKey = async (extra: { test?: boolean; expiresAt?: number } = {}) => {
      const a = await account(h.store, 5);
      const hash = uid('hash_');
      const key = await h.store.createKey(
        { accountId: a.id, hash, prefix: 'gk_abcde', label: 'prod', kind: 'payg', ...extra },
        T0,
      );
      return { a, hash, key };
    };

    it('creates a test key marked as such, in the record and in its identification; live keys carry no mark', async () => {
      const { hash, key } = await newKey({ test: true });
      expect(key.test).toBe(true);
      expect((await h.store.getKey(key.id))?.test).toBe(true);
      expect((await h.store.findKeyByHash(hash))?.key.test).toBe(true);
      const live = await newKey();
      expect('test' in live.key).toBe(false);
      expect('test' in ((await h.store.findKeyByHash(live.hash))?.key ?? {})).toBe(false);
    });

    it('rotates: a new secret, the same id, label, kind and restrictions; the old secret says until when it works', async () => {
      const { hash, key } = await newKey();
      await h.store.setKeyRestrictions(key.id, { referrers: ['https://*.example.com'], cidrs: [] });
      expect((await h.store.findKeyByHash(hash))?.secretUntil).toBeUndefined(); // cached where the store caches
      const fresh = uid('hash_');
      const until = T0 + 2 * HOUR;
      const rotated = await h.store.rotateKey(key.id, { hash: fresh, prefix: 'gk_newpr' }, until, T0 + HOUR);
      expect(rotated).toMatchObject({
        id: key.id,
        label: 'prod',
        kind: 'payg',
        prefix: 'gk_newpr',
        status: 'active',
        rotatedAt: T0 + HOUR,
        previousUntil: until,
        restrictions: { referrers: ['https://*.example.com'], cidrs: [] },
      });
      const current = await h.store.findKeyByHash(fresh);
      expect(current?.key.id).toBe(key.id);
      expect(current?.secretUntil).toBeUndefined();
      const old = await h.store.findKeyByHash(hash);
      expect(old?.key.id).toBe(key.id);
      expect(old?.secretUntil).toBe(until);
    });

    it('rotates without an overlap: the old secret is unknown at once; a second rotation ends an earlier overlap', async () => {
      const { hash, key } = await newKey();
      await h.store.findKeyByHash(hash);
      const second = uid('hash_');
      await h.store.rotateKey(key.id, { hash: second, prefix: 'gk_2' }, null, T0);
      expect(await h.store.findKeyByHash(hash)).toBeNull();
      const third = uid('hash_');
      await h.store.rotateKey(key.id, { hash: third, prefix: 'gk_3' }, T0 + HOUR, T0);
      expect((await h.store.findKeyByHash(second))?.secretUntil).toBe(T0 + HOUR);
      const fourth = uid('hash_');
      const r = await h.store.rotateKey(key.id, { hash: fourth, prefix: 'gk_4' }, T0 + 2 * HOUR, T0 + 1);
      expect(await h.store.findKeyByHash(second)).toBeNull();
      expect((await h.store.findKeyByHash(third))?.secretUntil).toBe(T0 + 2 * HOUR);
      expect(r.previousUntil).toBe(T0 + 2 * HOUR);
      // An overlap that would end before now is none.
      const fifth = uid('hash_');
      const none = await h.store.rotateKey(key.id, { hash: fifth, prefix: 'gk_5' }, T0, T0 + 5);
      expect('previousUntil' in none).toBe(false);
      expect(await h.store.findKeyByHash(fourth)).toBeNull();
    });

    it('refuses to rotate a revoked or unknown key', async () => {
      const { key } = await newKey();
      await h.store.revokeKey(key.id, T0);
      await expectConflict(
        h.store.rotateKey(key.id, { hash: uid('h'), prefix: 'gk_x' }, null, T0),
        'already_revoked',
      );
      await expectConflict(
        h.store.rotateKey('key_nope', { hash: uid('h'), prefix: 'gk_x' }, null, T0),
        'not_found',
      );
    });

    it('revoking a key during an overlap revokes it under both secrets', async () => {
      const { hash, key } = await newKey();
      const fresh = uid('hash_');
      await h.store.rotateKey(key.id, { hash: fresh, prefix: 'gk_n' }, T0 + HOUR, T0);
      await h.store.findKeyByHash(hash);
      await h.store.revokeKey(key.id, T0 + 1);
      expect((await h.store.findKeyByHash(hash))?.key.status).toBe('revoked');
      expect((await h.store.findKeyByHash(fresh))?.key.status).toBe('revoked');
    });

    it('sets and clears an end date, seen by identification at once', async () => {
      const { hash, key } = await newKey({ expiresAt: T0 + 9 * HOUR });
      expect(key.expiresAt).toBe(T0 + 9 * HOUR);
      expect((await h.store.findKeyByHash(hash))?.key.expiresAt).toBe(T0 + 9 * HOUR);
      const changed = await h.store.setKeyExpiry(key.id, T0 + HOUR);
      expect(changed.expiresAt).toBe(T0 + HOUR);
      expect((await h.store.findKeyByHash(hash))?.key.expiresAt).toBe(T0 + HOUR);
      const cleared = await h.store.setKeyExpiry(key.id, null);
      expect('expiresAt' in cleared).toBe(false);
      await expectConflict(h.store.setKeyExpiry('key_nope', null), 'not_found');
    });

    it("sets and clears a key's own burst limits, seen by identification at once; bad values change nothing", async () => {
      const { hash, key } = await newKey();
      expect('burst' in key).toBe(false);
      const set = await h.store.setKeyBurst(key.id, { perSecond: 20 });
      expect(set.burst).toEqual({ perSecond: 20 });
      expect((await h.store.findKeyByHash(hash))?.key.burst).toEqual({ perSecond: 20 });
      expect((await h.store.setKeyBurst(key.id, { perSecond: 5, perMinute: 100 })).burst).toEqual({
        perSecond: 5,
        perMinute: 100,
      });
      for (const bad of [{ perSecond: 0 }, { perMinute: -1 }, { perSecond: 1.5 }, {}]) {
        await expectConflict(h.store.setKeyBurst(key.id, bad), 'invalid_input');
      }
      expect((await h.store.getKey(key.id))?.burst).toEqual({ perSecond: 5, perMinute: 100 });
      const cleared = await h.store.setKeyBurst(key.id, null);
      expect('burst' in cleared).toBe(false);
      expect('burst' in ((await h.store.findKeyByHash(hash))?.key ?? {})).toBe(false);
      await expectConflict(h.store.setKeyBurst('key_nope', null), 'not_found');
    });

    it('revokes by a working secret: the current one, or the previous one within its overlap only', async () => {
      const { hash, key } = await newKey();
      expect(await h.store.revokeKeyByHash(uid('unknown_'), T0)).toBeNull();
      const fresh = uid('hash_');
      await h.store.rotateKey(key.id, { hash: fresh, prefix: 'gk_n' }, T0 + HOUR, T0);
      expect(await h.store.revokeKeyByHash(hash, T0 + HOUR)).toBeNull(); // the overlap has ended
      expect((await h.store.getKey(key.id))?.status).toBe('active');
      const r = await h.store.revokeKeyByHash(hash, T0 + 1);
      expect(r).toMatchObject({ id: key.id, status: 'revoked', revokedAt: T0 + 1 });
      expect((await h.store.findKeyByHash(fresh))?.key.status).toBe('revoked');
      expect(await h.store.revokeKeyByHash(fresh, T0 + 2)).toBeNull(); // already revoked: nothing more
      const other = await newKey();
      expect((await h.store.revokeKeyByHash(other.hash, T0))?.id).toBe(other.key.id);
    });
  });
}

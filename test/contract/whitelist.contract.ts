/** Contract: whitelist entries and the covering lookup (rule set B, D3, D18). */
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, T0 } from './helpers';

let block = 0;
/** A fresh documentation-range IPv4 address and IPv6 /64 per call, so tests never collide. */
function fresh(): { v4: string; v6: string } {
  block += 1;
  const r = (Date.now() + process.pid + block * 7919) % 60000;
  return {
    v4: `198.51.${block % 250}.${(r % 250) + 1}`,
    v6: `2001:db8:${(r + block).toString(16)}:${block.toString(16)}`,
  };
}

/** Whitelist management and lookup. */
export function whitelistRules(h: StoreHolder): void {
  describe('whitelist (D18)', () => {
    it('finds the account of a whitelisted IPv4 address, also as IPv4-mapped IPv6 (D3)', async () => {
      const a = await account(h.store);
      const { v4 } = fresh();
      const e = await h.store.addWhitelist(a.id, `${v4}/32`, T0);
      expect(e).toMatchObject({ accountId: a.id, cidr: `${v4}/32`, createdAt: T0 });
      expect(e.id).toMatch(/^wl_/);
      expect((await h.store.findWhitelistedAccount(v4))?.id).toBe(a.id);
      expect((await h.store.findWhitelistedAccount(`::ffff:${v4}`))?.id).toBe(a.id);
      expect(await h.store.findWhitelistedAccount('203.0.113.254')).toBeNull();
      expect(await h.store.findWhitelistedAccount('not an address')).toBeNull();
    });

    it('an IPv6 /64 entry covers every address of that /64 and nothing next to it', async () => {
      const a = await account(h.store);
      const { v6 } = fresh();
      await h.store.addWhitelist(a.id, `${v6}::/64`, T0);
      expect((await h.store.findWhitelistedAccount(`${v6}::1`))?.id).toBe(a.id);
      expect((await h.store.findWhitelistedAccount(`${v6}:ffff:ffff:ffff:ffff`))?.id).toBe(a.id);
      const [p1, p2, p3, p4] = v6.split(':');
      const next = `${p1}:${p2}:${p3}:${(parseInt(p4 ?? '0', 16) + 1).toString(16)}::`;
      expect(await h.store.findWhitelistedAccount(next)).toBeNull();
    });

    it('finds the account through an outer block when the nearest entry is a smaller block inside it', async () => {
      const [a, b] = [await account(h.store), await account(h.store)];
      const { v6 } = fresh();
      await h.store.addWhitelist(a.id, `${v6}::/64`, T0);
      await h.store.addWhitelist(a.id, `${v6}::10/128`, T0);
      expect((await h.store.findWhitelistedAccount(`${v6}::11`))?.id).toBe(a.id);
      expect((await h.store.findWhitelistedAccount(`${v6}::10`))?.id).toBe(a.id);
      expect((await h.store.findWhitelistedAccount(`${v6}::9`))?.id).toBe(a.id);
      const { v4 } = fresh();
      await h.store.addWhitelist(b.id, `${v4}/32`, T0);
      const [o1, o2, o3, o4] = v4.split('.').map(Number);
      const above = `${o1}.${o2}.${o3}.${(o4 ?? 0) + 1}`;
      expect(await h.store.findWhitelistedAccount(above)).toBeNull();
    });

    it("refuses an entry that overlaps another account's entry (whitelist_overlap)", async () => {
      const [a, b] = [await account(h.store), await account(h.store)];
      const { v4, v6 } = fresh();
      await h.store.addWhitelist(a.id, `${v4}/32`, T0);
      await h.store.addWhitelist(a.id, `${v6}::/64`, T0);
      await expectConflict(h.store.addWhitelist(b.id, `${v4}/32`, T0), 'whitelist_overlap');
      await expectConflict(h.store.addWhitelist(b.id, `${v6}::42/128`, T0), 'whitelist_overlap');
      const { v6: other } = fresh();
      await h.store.addWhitelist(a.id, `${other}::7/128`, T0);
      await expectConflict(h.store.addWhitelist(b.id, `${other}::/64`, T0), 'whitelist_overlap');
      expect(await h.store.listWhitelist(b.id)).toEqual([]);
    });

    it('the same block again for the same account returns the existing entry', async () => {
      const a = await account(h.store);
      const { v4 } = fresh();
      const e = await h.store.addWhitelist(a.id, `${v4}/32`, T0);
      expect(await h.store.addWhitelist(a.id, `${v4}/32`, T0 + 5)).toEqual(e);
      expect(await h.store.listWhitelist(a.id)).toEqual([e]);
    });

    it('lists and removes entries; a removed entry no longer identifies the account', async () => {
      const [a, b] = [await account(h.store), await account(h.store)];
      const { v4, v6 } = fresh();
      const e1 = await h.store.addWhitelist(a.id, `${v4}/32`, T0);
      const e2 = await h.store.addWhitelist(a.id, `${v6}::/64`, T0 + 1);
      expect(await h.store.listWhitelist(a.id)).toEqual([e1, e2]);
      await expectConflict(h.store.removeWhitelist(b.id, e1.id), 'not_found');
      await h.store.removeWhitelist(a.id, e1.id);
      expect(await h.store.findWhitelistedAccount(v4)).toBeNull();
      expect(await h.store.listWhitelist(a.id)).toEqual([e2]);
      await expectConflict(h.store.removeWhitelist(a.id, e1.id), 'not_found');
      // Once removed, the address can go to another account.
      expect((await h.store.addWhitelist(b.id, `${v4}/32`, T0)).accountId).toBe(b.id);
    });

    it.each(['300.1.2.3/32', '2001:db8::/129', 'example.org', '1.2.3/32', ''])(
      'refuses the malformed block %p as invalid_input',
      async (cidr) => {
        const a = await account(h.store);
        await expectConflict(h.store.addWhitelist(a.id, cidr, T0), 'invalid_input');
      },
    );
  });
}

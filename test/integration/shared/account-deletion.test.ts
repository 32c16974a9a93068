/**
 * Account deletion on the shared store (issue 15 item 1): the deleted account's keys and whitelisted addresses stop
 * being identified on another instance (whose identity cache would otherwise keep them 10 minutes) within 1 s,
 * through the invalidation bus (D19).
 */
import type { SharedStore } from '../../../gateway/store/shared';
import { describeShared, useSharedEnv, msUntil } from './fixture';

jest.setTimeout(30_000);

const T0 = Date.UTC(2026, 10, 22, 10);

describeShared(
  'shared store: account deletion between instances',
  () => {
    const { env } = useSharedEnv('deletion');
    let a: SharedStore;
    let b: SharedStore;
    beforeAll(async () => {
      a = await env.open();
      b = await env.open({ cacheTtlMs: 600_000 });
    });

    it("revokes the deleted account's keys and drops its whitelist on the other instance within 1 s", async () => {
      const acc = await a.createAccount({ email: 'gone@example.org' }, T0);
      await a.createKey({ accountId: acc.id, hash: 'h-gone', prefix: 'gk_abcde', kind: 'payg' }, T0);
      await a.addWhitelist(acc.id, '203.0.113.80/32', T0);
      await a.credit(acc.id, 50, null, T0);
      expect((await b.findKeyByHash('h-gone'))?.key.status).toBe('active'); // cached on b
      expect((await b.findWhitelistedAccount('203.0.113.80'))?.id).toBe(acc.id);
      const { forfeited } = await a.deleteAccount(acc.id, `deleted-${acc.id}@deleted.invalid`, T0 + 1);
      expect(forfeited).toBe(50);
      const keyMs = await msUntil(async () => (await b.findKeyByHash('h-gone'))?.key.status === 'revoked');
      const wlMs = await msUntil(async () => (await b.findWhitelistedAccount('203.0.113.80')) === null);
      expect(keyMs).toBeLessThan(1_000);
      expect(wlMs).toBeLessThan(1_000);
      expect((await b.findKeyByHash('h-gone'))?.account).toMatchObject({ status: 'deleted', balance: 0 });
    });
  },
  ['redis-server', 'redis-cli'],
);

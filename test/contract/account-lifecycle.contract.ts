/** Contract: account lifecycle (issue 15 item 1): e-mail verification and deletion. */
import { utcDay } from '../../gateway/core/clock';
import type { StoreHolder } from './helpers';
import { account, bill, counter, key, plan, slot, T0, uid } from './helpers';
import { expectConflict } from './accounts.contract';

const tombstoneOf = (id: string) => `deleted-${id}@deleted.invalid`;

/** Verification and deletion rules. */
export function accountLifecycleRules(h: StoreHolder): void {
  describe('account lifecycle', () => {
    it('counts an account as verified at creation unless created unverified; marks it verified once', async () => {
      const operator = await h.store.createAccount({ email: `${uid('op')}@example.org` }, T0);
      expect(operator.emailVerifiedAt).toBe(T0);
      expect(operator.deletedAt).toBeNull();
      const a = await h.store.createAccount({ email: `${uid('v')}@example.org`, emailVerifiedAt: null }, T0);
      expect(a.emailVerifiedAt).toBeNull();
      expect((await h.store.getAccount(a.id))?.emailVerifiedAt).toBeNull();
      expect(await h.store.markEmailVerified(a.id, T0 + 5)).toMatchObject({
        id: a.id,
        emailVerifiedAt: T0 + 5,
      });
      // The first proof is kept.
      expect((await h.store.markEmailVerified(a.id, T0 + 9)).emailVerifiedAt).toBe(T0 + 5);
      expect((await h.store.getAccount(a.id))?.emailVerifiedAt).toBe(T0 + 5);
      await expectConflict(h.store.markEmailVerified('acc_nope', T0), 'not_found');
    });

    it('deletes an account: keys revoked, whitelist and slots gone, data erased, balance forfeited, ledger kept', async () => {
      const a = await account(h.store, 700);
      const email = a.email;
      await h.store.setPasswordHash(a.id, 'scrypt$z');
      const hash1 = uid('hash_');
      const k1 = await h.store.createKey(
        { accountId: a.id, hash: hash1, prefix: 'gk_test1', kind: 'payg' },
        T0,
      );
      expect((await h.store.findKeyByHash(hash1))?.key.status).toBe('active'); // cached where there is a cache
      const k2 = await key(h.store, a.id);
      await h.store.revokeKey(k2.id, T0 + 1);
      const wl = `198.51.${(Date.now() % 200) + 1}.${(process.pid % 200) + 1}/32`;
      await h.store.addWhitelist(a.id, wl, T0);
      const admitted = await h.store.admit(
        plan({
          slots: [slot(`key:${k1.id}`, '203.0.113.9/32'), slot(`account:${a.id}`, '203.0.113.9/32')],
          free: [counter(`key:${k1.id}`, 0)],
          overflow: bill(a.id, 100),
          usage: [`key:${k1.id}`],
          keyId: k1.id,
        }),
      );
      expect(admitted.admitted).toBe(true);
      if (admitted.admitted) await h.store.keep(admitted.ticket);
      expect(await h.store.listSlots(`key:${k1.id}`, 'fixed', 86_400_000, T0)).toHaveLength(1);

      const now = T0 + 60_000;
      const { account: gone, forfeited } = await h.store.deleteAccount(a.id, tombstoneOf(a.id), now);
      expect(forfeited).toBe(600);
      expect(gone).toMatchObject({
        id: a.id,
        email: tombstoneOf(a.id),
        name: null,
        passwordHash: null,
        status: 'deleted',
        balance: 0,
        deletedAt: now,
      });
      expect(await h.store.getAccount(a.id)).toMatchObject({ status: 'deleted', balance: 0, deletedAt: now });
      // Keys: the active one revoked now, the earlier revocation kept; identification sees it revoked at once.
      const keys = await h.store.listKeys(a.id);
      expect(keys.find((k) => k.id === k1.id)).toMatchObject({ status: 'revoked', revokedAt: now });
      expect(keys.find((k) => k.id === k2.id)).toMatchObject({ status: 'revoked', revokedAt: T0 + 1 });
      expect((await h.store.findKeyByHash(hash1))?.key.status).toBe('revoked');
      expect(await h.store.listWhitelist(a.id)).toEqual([]);
      expect(await h.store.findWhitelistedAccount(wl.replace('/32', ''))).toBeNull();
      expect(await h.store.listSlots(`key:${k1.id}`, 'fixed', 86_400_000, T0)).toEqual([]);
      expect(await h.store.listSlots(`account:${a.id}`, 'fixed', 86_400_000, T0)).toEqual([]);
      // The ledger keeps every row under the account id, and the forfeit is one more row.
      const ledger = await h.store.ledger(a.id, 10);
      expect(ledger.map((e) => e.kind).sort()).toEqual(['adjustment', 'charge', 'topup']);
      expect(ledger.find((e) => e.kind === 'adjustment')).toMatchObject({
        amount: -600,
        ref: 'account-deleted',
        accountId: a.id,
      });
      expect(ledger.reduce((s, e) => s + e.amount, 0)).toBe(0);
      const usage = await h.store.usage([`key:${k1.id}`], utcDay(T0), utcDay(T0));
      expect(usage[0]).toMatchObject({ billed: 1 });
      // The address is free again.
      expect(await h.store.findAccountByEmail(email)).toBeNull();
      const again = await h.store.createAccount({ email }, now);
      expect(again.id).not.toBe(a.id);
    });

    it('refuses every change to a deleted account (account_deleted) and a second deletion changes nothing', async () => {
      const a = await account(h.store);
      await h.store.deleteAccount(a.id, tombstoneOf(a.id), T0);
      await expectConflict(h.store.deleteAccount(a.id, tombstoneOf(a.id), T0 + 1), 'account_deleted');
      await expectConflict(h.store.setAccountStatus(a.id, 'active'), 'account_deleted');
      await expectConflict(h.store.setEmail(a.id, `${uid('x')}@example.org`), 'account_deleted');
      await expectConflict(h.store.setPasswordHash(a.id, 'scrypt$new'), 'account_deleted');
      await expectConflict(h.store.setUnlimitedUntil(a.id, T0 + 1), 'account_deleted');
      await expectConflict(
        h.store.buyPackage(
          a.id,
          1,
          { accountId: a.id, hash: uid('hash_'), prefix: 'gk_pkg00', kind: 'unlimited' },
          T0,
        ),
        'account_deleted',
      );
      await expectConflict(h.store.credit(a.id, 10, null, T0), 'account_deleted');
      await expectConflict(key(h.store, a.id), 'account_deleted');
      await expectConflict(h.store.addWhitelist(a.id, '192.0.2.77/32', T0), 'account_deleted');
      await expectConflict(h.store.markEmailVerified(a.id, T0), 'account_deleted');
      expect(await h.store.getAccount(a.id)).toMatchObject({ status: 'deleted', deletedAt: T0, balance: 0 });
      expect(await h.store.ledger(a.id, 10)).toEqual([]);
      await expectConflict(h.store.deleteAccount('acc_nope', 'x@deleted.invalid', T0), 'not_found');
    });

    it('erases the billing details, alert settings, webhook endpoints and notifications; keeps the receipts', async () => {
      const a = await account(h.store);
      await h.store.setBilling(a.id, { name: 'Ada Example', address: '1 Main St', vatId: 'GB123456789' }, T0);
      const { receipt } = await h.store.creditWithReceipt(a.id, 500, uid('topup'), T0, {
        method: 'test',
        currency: 'credits',
      });
      await h.store.setNotificationSettings(a.id, true, 100);
      const hook = await h.store.addWebhookEndpoint(a.id, 'https://hooks.example.org/x', 'c2VjcmV0', 3, T0);
      expect(hook).not.toBeNull();
      const eventId = uid('evt_');
      const recorded = await h.store.recordNotification(
        { id: eventId, accountId: a.id, type: 'notification.test', data: '{}', createdAt: T0 },
        [{ channel: 'email', target: a.email }],
      );
      expect(recorded).toBe(true);
      expect(await h.store.deliveryLog(a.id, 10)).toEqual([]);

      await h.store.deleteAccount(a.id, tombstoneOf(a.id), T0 + 1);

      expect(await h.store.getBilling(a.id)).toEqual({ name: null, address: null, vatId: null });
      expect(await h.store.listWebhookEndpoints(a.id)).toEqual([]);
      expect((await h.store.notificationSettings(a.id)).lowBalanceThreshold).toBeNull();
      // The queued e-mail to the old address is gone: no worker can claim it.
      const claimed = await h.store.claimDeliveries('erasure-test', T0 + 2, 60_000, 1000);
      expect(claimed.filter((d) => d.accountId === a.id)).toEqual([]);
      // Receipts are accounting records: kept, with the billing copy they were issued with.
      expect(await h.store.listReceipts(a.id, 10)).toEqual([
        expect.objectContaining({
          number: receipt.number,
          billing: expect.objectContaining({ name: 'Ada Example' }),
        }),
      ]);
    });

    it('deletes an account with a zero balance without a forfeit row', async () => {
      const a = await account(h.store);
      expect((await h.store.deleteAccount(a.id, tombstoneOf(a.id), T0)).forfeited).toBe(0);
      expect(await h.store.ledger(a.id, 10)).toEqual([]);
    });
  });
}

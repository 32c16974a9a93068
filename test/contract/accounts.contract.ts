/** Contract: accounts, credit and packages (D15, D16, D17). */
import { StoreConflict } from '../../gateway/store/types';
import type { StoreHolder } from './helpers';
import { account, T0, uid } from './helpers';

/** Expect a StoreConflict with this reason. */
export async function expectConflict(p: Promise<unknown>, reason: StoreConflict['reason']): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(StoreConflict);
  await expect(p).rejects.toMatchObject({ reason });
}

/** Account management operations. */
export function accountRules(h: StoreHolder): void {
  describe('accounts', () => {
    it('creates an active account with a zero balance and finds it by id and by e-mail in any case', async () => {
      const email = `${uid('Mixed')}@Example.ORG`;
      const a = await h.store.createAccount({ email, name: 'Ada', passwordHash: 'scrypt$x' }, T0);
      expect(a).toMatchObject({ email, name: 'Ada', passwordHash: 'scrypt$x', status: 'active', balance: 0 });
      expect(a).toMatchObject({ unlimitedUntil: null, createdAt: T0 });
      expect(a.id).toMatch(/^acc_/);
      expect(await h.store.getAccount(a.id)).toEqual(a);
      expect(await h.store.findAccountByEmail(email.toLowerCase())).toEqual(a);
      expect(await h.store.findAccountByEmail(` ${email.toUpperCase()} `)).toEqual(a);
      expect(await h.store.getAccount('acc_nope')).toBeNull();
      expect(await h.store.findAccountByEmail('nobody@example.org')).toBeNull();
    });

    it('refuses a second account with the same e-mail in another case (email_taken)', async () => {
      const email = `${uid('dup')}@example.org`;
      await h.store.createAccount({ email }, T0);
      await expectConflict(h.store.createAccount({ email: email.toUpperCase() }, T0), 'email_taken');
    });

    it('suspends and reactivates; sets and clears the Unlimited plan; sets the password hash', async () => {
      const a = await account(h.store);
      expect(await h.store.setAccountStatus(a.id, 'suspended')).toMatchObject({ status: 'suspended' });
      expect(await h.store.setUnlimitedUntil(a.id, T0 + 1000)).toMatchObject({ unlimitedUntil: T0 + 1000 });
      await h.store.setPasswordHash(a.id, 'scrypt$y');
      expect(await h.store.getAccount(a.id)).toMatchObject({ status: 'suspended', passwordHash: 'scrypt$y' });
      expect(await h.store.setAccountStatus(a.id, 'active')).toMatchObject({ status: 'active' });
      expect(await h.store.setUnlimitedUntil(a.id, null)).toMatchObject({ unlimitedUntil: null });
    });

    it('changes the e-mail, unique case-insensitively; a taken address is email_taken and changes nothing', async () => {
      const a = await account(h.store);
      const b = await account(h.store);
      const changed = await h.store.setEmail(a.id, `  New-${a.id}@Example.com `);
      expect(changed).toMatchObject({ id: a.id, email: `New-${a.id}@Example.com` });
      expect((await h.store.findAccountByEmail(`new-${a.id}@example.com`))?.id).toBe(a.id);
      await expectConflict(h.store.setEmail(b.id, `NEW-${a.id}@EXAMPLE.COM`), 'email_taken');
      expect((await h.store.getAccount(b.id))?.email).toBe(b.email);
      // Its own address in another case is not "taken".
      expect(await h.store.setEmail(a.id, `new-${a.id}@example.com`)).toMatchObject({
        email: `new-${a.id}@example.com`,
      });
      await expectConflict(h.store.setEmail(a.id, '   '), 'invalid_input');
    });

    it('answers not_found for operations on an unknown account', async () => {
      await expectConflict(h.store.setAccountStatus('acc_nope', 'suspended'), 'not_found');
      await expectConflict(h.store.setUnlimitedUntil('acc_nope', 1), 'not_found');
      await expectConflict(h.store.setPasswordHash('acc_nope', 'x'), 'not_found');
      await expectConflict(h.store.setEmail('acc_nope', 'nobody@example.com'), 'not_found');
      await expectConflict(h.store.credit('acc_nope', 1, null, T0), 'not_found');
      await expectConflict(h.store.listKeys('acc_nope'), 'not_found');
      await expectConflict(h.store.listWhitelist('acc_nope'), 'not_found');
      await expectConflict(h.store.ledger('acc_nope', 10), 'not_found');
    });
  });

  describe('credit (D16)', () => {
    it('adds to the balance and writes a top-up to the ledger', async () => {
      const a = await account(h.store);
      const r = await h.store.credit(a.id, 250, 'pay_1', T0 + 5);
      expect(r).toMatchObject({ balance: 250, replayed: false });
      expect(r.entry).toMatchObject({
        accountId: a.id,
        amount: 250,
        kind: 'topup',
        ref: 'pay_1',
        createdAt: T0 + 5,
      });
      expect(r.entry.id).toMatch(/^led_/);
      expect(await h.store.ledger(a.id, 10)).toEqual([r.entry]);
    });

    it('is idempotent per key: a repeat returns the first entry, a different amount is idempotency_mismatch', async () => {
      const a = await account(h.store);
      const first = await h.store.credit(a.id, 100, 'pay_2', T0);
      const again = await h.store.credit(a.id, 100, 'pay_2', T0 + 9);
      expect(again).toEqual({ entry: first.entry, balance: 100, replayed: true });
      await expectConflict(h.store.credit(a.id, 101, 'pay_2', T0), 'idempotency_mismatch');
      // The same key on another account is another top-up.
      const b = await account(h.store);
      expect(await h.store.credit(b.id, 100, 'pay_2', T0)).toMatchObject({ replayed: false, balance: 100 });
      expect((await h.store.getAccount(a.id))?.balance).toBe(100);
    });

    it('without an idempotency key every call is a new top-up', async () => {
      const a = await account(h.store);
      await h.store.credit(a.id, 1, null, T0);
      expect(await h.store.credit(a.id, 1, null, T0)).toMatchObject({ balance: 2, replayed: false });
      expect(await h.store.ledger(a.id, 10)).toHaveLength(2);
    });

    it.each([0, -1, 1.5, Number.NaN, 2 ** 53])('refuses the amount %p as invalid_input', async (amount) => {
      const a = await account(h.store);
      await expectConflict(h.store.credit(a.id, amount, null, T0), 'invalid_input');
      expect(await h.store.getAccount(a.id)).toMatchObject({ balance: 0 });
    });

    it('lists the ledger newest first, at most `limit` entries', async () => {
      const a = await account(h.store);
      for (const n of [1, 2, 3]) await h.store.credit(a.id, n, null, T0);
      expect((await h.store.ledger(a.id, 2)).map((e) => e.amount)).toEqual([3, 2]);
    });

    it('pages the ledger by `before`: each entry once, newest first; an unknown or foreign `before` is an empty page', async () => {
      const a = await account(h.store);
      const b = await account(h.store);
      for (const n of [1, 2, 3, 4, 5]) await h.store.credit(a.id, n, null, T0);
      await h.store.credit(b.id, 9, null, T0);
      const first = await h.store.ledger(a.id, 2);
      const second = await h.store.ledger(a.id, 2, first.at(-1)?.id);
      const third = await h.store.ledger(a.id, 2, second.at(-1)?.id);
      expect([first, second, third].map((p) => p.map((e) => e.amount))).toEqual([[5, 4], [3, 2], [1]]);
      expect(await h.store.ledger(a.id, 2, third.at(-1)?.id)).toEqual([]);
      expect(await h.store.ledger(a.id, 2, 'no-such-entry')).toEqual([]);
      const foreign = (await h.store.ledger(b.id, 1))[0]?.id;
      expect(await h.store.ledger(a.id, 2, foreign)).toEqual([]);
    });
  });

  describe('packages (A, D17)', () => {
    it('debits the price and creates an Unlimited key with its expiry, with a package ledger row', async () => {
      const a = await account(h.store, 600);
      const hash = uid('hash_');
      const r = await h.store.buyPackage(
        a.id,
        500,
        { accountId: a.id, hash, prefix: 'gk_pack0', kind: 'unlimited', packageUntil: T0 + 99, label: 'pkg' },
        T0,
      );
      expect(r.balance).toBe(100);
      expect(r.key).toMatchObject({
        accountId: a.id,
        kind: 'unlimited',
        packageUntil: T0 + 99,
        status: 'active',
        label: 'pkg',
      });
      expect((await h.store.findKeyByHash(hash))?.key).toEqual(r.key);
      const [row] = await h.store.ledger(a.id, 1);
      expect(row).toMatchObject({ amount: -500, kind: 'package', keyId: r.key.id });
      expect((await h.store.getAccount(a.id))?.balance).toBe(100);
    });

    it('refuses with insufficient_balance and changes nothing', async () => {
      const a = await account(h.store, 499);
      const hash = uid('hash_');
      const nk = {
        accountId: a.id,
        hash,
        prefix: 'gk_pack1',
        kind: 'unlimited' as const,
        packageUntil: T0 + 1,
      };
      await expectConflict(h.store.buyPackage(a.id, 500, nk, T0), 'insufficient_balance');
      expect(await h.store.findKeyByHash(hash)).toBeNull();
      expect(await h.store.listKeys(a.id)).toEqual([]);
      expect((await h.store.getAccount(a.id))?.balance).toBe(499);
      expect(await h.store.ledger(a.id, 10)).toHaveLength(1);
      await expectConflict(
        h.store.buyPackage('acc_nope', 500, { ...nk, accountId: 'acc_nope' }, T0),
        'not_found',
      );
    });
  });
}

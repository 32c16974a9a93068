/**
 * Contract: the dashboard's second factor (TOTP enrolment, steps accepted once, recovery codes spent once) and the
 * key-expiry reminder's list and marks (migration 014).
 */
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, HOUR, T0, uid } from './helpers';

const DAY = 24 * HOUR;

/** Second-factor records and key-expiry reminders. */
export function securityRules(h: StoreHolder): void {
  describe('second factor', () => {
    it('keeps a pending enrolment, replaces its secret when begun again, and turns it on once', async () => {
      const a = await account(h.store);
      expect(await h.store.totpState(a.id)).toBeNull();
      await expectConflict(h.store.beginTotp('acc_missing', 'sealed', T0), 'not_found');
      expect(await h.store.beginTotp(a.id, 'sealed-1', T0)).toBe(true);
      expect(await h.store.totpState(a.id)).toEqual({
        secret: 'sealed-1',
        createdAt: T0,
        enabledAt: null,
        lastStep: null,
      });
      expect(await h.store.beginTotp(a.id, 'sealed-2', T0 + 1)).toBe(true);
      expect((await h.store.totpState(a.id))?.secret).toBe('sealed-2');
      // A step is not accepted while the enrolment is pending.
      expect(await h.store.acceptTotpStep(a.id, 100)).toBe(false);
      expect(await h.store.enableTotp(a.id, 100, ['h1', 'h2'], T0 + 2)).toBe(true);
      expect(await h.store.totpState(a.id)).toEqual({
        secret: 'sealed-2',
        createdAt: T0 + 1,
        enabledAt: T0 + 2,
        lastStep: 100,
      });
      expect(await h.store.recoveryCodesLeft(a.id)).toBe(2);
      // On: a second confirmation loses, and a new enrolment cannot replace the secret.
      expect(await h.store.enableTotp(a.id, 101, ['h3'], T0 + 3)).toBe(false);
      expect(await h.store.beginTotp(a.id, 'sealed-3', T0 + 3)).toBe(false);
      expect((await h.store.totpState(a.id))?.secret).toBe('sealed-2');
      expect(await h.store.recoveryCodesLeft(a.id)).toBe(2);
    });

    it('accepts each step once and never an earlier one; of concurrent acceptances of one step exactly one wins', async () => {
      const a = await account(h.store);
      await h.store.beginTotp(a.id, 'sealed', T0);
      await h.store.enableTotp(a.id, 1000, [], T0);
      expect(await h.store.acceptTotpStep(a.id, 1000)).toBe(false); // the confirming code's step
      expect(await h.store.acceptTotpStep(a.id, 1001)).toBe(true);
      expect(await h.store.acceptTotpStep(a.id, 1001)).toBe(false);
      expect(await h.store.acceptTotpStep(a.id, 1000)).toBe(false);
      const wins = await Promise.all(Array.from({ length: 6 }, () => h.store.acceptTotpStep(a.id, 1002)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect((await h.store.totpState(a.id))?.lastStep).toBe(1002);
      expect(await h.store.acceptTotpStep('acc_missing', 5000)).toBe(false);
    });

    it('spends each recovery code once (also concurrently); new codes void the old ones; turning off removes all', async () => {
      const a = await account(h.store);
      const other = await account(h.store);
      await h.store.beginTotp(a.id, 'sealed', T0);
      await h.store.enableTotp(a.id, 1, ['c1', 'c2', 'c3'], T0);
      expect(await h.store.useRecoveryCode(other.id, 'c1', T0)).toBe(false); // another account's code
      expect(await h.store.useRecoveryCode(a.id, 'c1', T0 + 1)).toBe(true);
      expect(await h.store.useRecoveryCode(a.id, 'c1', T0 + 2)).toBe(false);
      expect(await h.store.useRecoveryCode(a.id, 'nope', T0 + 2)).toBe(false);
      const spent = await Promise.all(
        Array.from({ length: 6 }, () => h.store.useRecoveryCode(a.id, 'c2', T0)),
      );
      expect(spent.filter(Boolean)).toHaveLength(1);
      expect(await h.store.recoveryCodesLeft(a.id)).toBe(1);
      await h.store.replaceRecoveryCodes(a.id, ['d1', 'd2'], T0 + 3);
      expect(await h.store.recoveryCodesLeft(a.id)).toBe(2);
      expect(await h.store.useRecoveryCode(a.id, 'c3', T0 + 4)).toBe(false);
      expect(await h.store.useRecoveryCode(a.id, 'd2', T0 + 4)).toBe(true);
      expect(await h.store.disableTotp(a.id)).toBe(true);
      expect(await h.store.disableTotp(a.id)).toBe(false);
      expect(await h.store.totpState(a.id)).toBeNull();
      expect(await h.store.recoveryCodesLeft(a.id)).toBe(0);
      expect(await h.store.useRecoveryCode(a.id, 'd1', T0 + 5)).toBe(false);
    });

    it('erases the enrolment and recovery codes with the account; a deleted account cannot enrol', async () => {
      const a = await account(h.store);
      await h.store.beginTotp(a.id, 'sealed', T0);
      await h.store.enableTotp(a.id, 1, ['e1'], T0);
      await h.store.deleteAccount(a.id, `deleted-${a.id}@deleted.invalid`, T0 + 1);
      expect(await h.store.totpState(a.id)).toBeNull();
      expect(await h.store.recoveryCodesLeft(a.id)).toBe(0);
      await expectConflict(h.store.beginTotp(a.id, 'sealed', T0 + 2), 'account_deleted');
    });
  });

  describe('key expiry reminders', () => {
    // Far from the dates other contract tests use, and read only for this test's own accounts.
    const BASE = T0 + 4000 * DAY + Math.floor(Math.random() * 1000) * DAY;
    const newKey = async (accountId: string, expiresAt?: number) =>
      h.store.createKey(
        {
          accountId,
          hash: uid('hash_'),
          prefix: 'gk_abcde',
          kind: 'payg',
          label: 'ends',
          ...(expiresAt === undefined ? {} : { expiresAt }),
        },
        T0,
      );
    const mine = async (accountId: string, from: number, to: number) =>
      (await h.store.keysExpiring(from, to, 1000)).filter((k) => k.accountId === accountId);

    it('lists active keys ending in (from, to] not yet reminded, and marks each reminded once', async () => {
      const a = await account(h.store);
      const soon = await newKey(a.id, BASE + 3 * DAY);
      const edge = await newKey(a.id, BASE + 7 * DAY);
      await newKey(a.id, BASE + 8 * DAY); // after the window
      await newKey(a.id, BASE); // at `from`: not in (from, to]
      await newKey(a.id); // no end
      const revoked = await newKey(a.id, BASE + 2 * DAY);
      await h.store.revokeKey(revoked.id, T0);
      expect(await mine(a.id, BASE, BASE + 7 * DAY)).toEqual([
        { id: soon.id, accountId: a.id, prefix: 'gk_abcde', label: 'ends', expiresAt: BASE + 3 * DAY },
        { id: edge.id, accountId: a.id, prefix: 'gk_abcde', label: 'ends', expiresAt: BASE + 7 * DAY },
      ]);
      const marks = await Promise.all(
        Array.from({ length: 5 }, () => h.store.markKeyExpiryNotified(soon.id, BASE + 3 * DAY, BASE)),
      );
      expect(marks.filter(Boolean)).toHaveLength(1);
      expect((await mine(a.id, BASE, BASE + 7 * DAY)).map((k) => k.id)).toEqual([edge.id]);
      // A mark for an end the key no longer has changes nothing.
      expect(await h.store.markKeyExpiryNotified(edge.id, BASE + 6 * DAY, BASE)).toBe(false);
      expect((await mine(a.id, BASE, BASE + 7 * DAY)).map((k) => k.id)).toEqual([edge.id]);
    });

    it('reminds again of a new end date: setting the end clears the mark', async () => {
      const a = await account(h.store);
      const k = await newKey(a.id, BASE + 2 * DAY);
      expect(await h.store.markKeyExpiryNotified(k.id, BASE + 2 * DAY, BASE)).toBe(true);
      expect(await mine(a.id, BASE, BASE + 7 * DAY)).toEqual([]);
      await h.store.setKeyExpiry(k.id, BASE + 5 * DAY);
      expect((await mine(a.id, BASE, BASE + 7 * DAY)).map((x) => x.expiresAt)).toEqual([BASE + 5 * DAY]);
      expect(await h.store.markKeyExpiryNotified(k.id, BASE + 5 * DAY, BASE + 1)).toBe(true);
      expect(await h.store.markKeyExpiryNotified(k.id, BASE + 5 * DAY, BASE + 2)).toBe(false);
    });
  });
}

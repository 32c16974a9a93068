/**
 * Contract: notifications (issue 15 item 2, D30). Settings and their low-balance arming, webhook endpoints with a
 * limit, events inserted once by id, an outbox whose claims are exclusive under a lease, the delivery log, and the
 * Unlimited packages and plans about to end.
 */
import type { NotificationEvent } from '../../gateway/store/notifications';
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { HOUR, T0, account, uid } from './helpers';

const LEASE = 60_000;

function event(accountId: string, at = T0): NotificationEvent {
  return { id: uid('evt_'), accountId, type: 'notification.test', data: '{"n":1}', createdAt: at };
}

/** Notification settings, endpoints, events and deliveries. */
export function notificationRules(h: StoreHolder): void {
  describe('notifications', () => {
    /** Claim and fail every due delivery, so each test sees only its own. */
    async function drain(now: number): Promise<void> {
      for (;;) {
        const got = await h.store.claimDeliveries('drain', now, LEASE, 100);
        if (got.length === 0) return;
        for (const d of got) {
          await h.store.finishDelivery(
            d.id,
            'drain',
            { at: now, ok: false, httpStatus: null, error: 'x' },
            {
              kind: 'failed',
            },
          );
        }
      }
    }

    it('has defaults, saves settings, and re-arms the low-balance alert only when the threshold changes', async () => {
      const a = await account(h.store);
      expect(await h.store.notificationSettings(a.id)).toEqual({
        accountId: a.id,
        emailAlerts: true,
        lowBalanceThreshold: null,
        lowBalanceArmed: true,
        lowBalanceSeq: 0,
      });
      const s = await h.store.setNotificationSettings(a.id, false, 5_000);
      expect(s).toMatchObject({ emailAlerts: false, lowBalanceThreshold: 5_000, lowBalanceArmed: true });
      const seq = s.lowBalanceSeq;
      expect(await h.store.armLowBalance(a.id, seq, false)).toBe(true);
      expect(await h.store.armLowBalance(a.id, seq, false)).toBe(false);
      // Same threshold: still disarmed.
      await h.store.setNotificationSettings(a.id, true, 5_000);
      expect(await h.store.notificationSettings(a.id)).toMatchObject({
        lowBalanceArmed: false,
        lowBalanceSeq: seq,
      });
      // A new threshold: armed, a new crossing.
      const changed = await h.store.setNotificationSettings(a.id, true, 7_000);
      expect(changed).toMatchObject({ lowBalanceArmed: true, lowBalanceSeq: seq + 1 });
      expect((await h.store.lowBalanceWatch(null, 10_000)).some((w) => w.accountId === a.id)).toBe(true);
      await expectConflict(h.store.setNotificationSettings(uid('acc_'), true, null), 'not_found');
    });

    it('lists the watched accounts page by page in account order, each once, however small the page', async () => {
      const watched = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const a = await account(h.store);
        await h.store.setNotificationSettings(a.id, true, 100 + i);
        watched.add(a.id);
      }
      const unwatched = await account(h.store);
      await h.store.setNotificationSettings(unwatched.id, true, null);
      const seen: string[] = [];
      let pages = 0;
      for (let after: string | null = null; ; pages++) {
        const page = await h.store.lowBalanceWatch(after, 2);
        expect(page.length).toBeLessThanOrEqual(2);
        seen.push(...page.map((w) => w.accountId));
        if (page.length < 2) break;
        after = page[page.length - 1]?.accountId ?? null;
      }
      expect(pages).toBeGreaterThanOrEqual(2);
      expect([...seen].sort()).toEqual(seen); // account id order, so `after` never skips or repeats one
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of watched) expect(seen).toContain(id);
      expect(seen).not.toContain(unwatched.id);
      const all = await h.store.lowBalanceWatch(null, 10_000);
      expect(all.map((w) => w.accountId)).toEqual(seen);
      for (const bad of [0, 10_001, 1.5, Number.NaN]) {
        await expect(h.store.lowBalanceWatch(null, bad)).rejects.toThrow(RangeError);
      }
    });

    it('re-arms a disarmed alert once, bumping the crossing, even when two instances race', async () => {
      const a = await account(h.store);
      const { lowBalanceSeq: seq } = await h.store.setNotificationSettings(a.id, true, 100);
      expect(await h.store.armLowBalance(a.id, seq, true)).toBe(false); // already armed
      expect(await h.store.armLowBalance(a.id, seq, false)).toBe(true);
      const raced = await Promise.all([1, 2, 3].map(() => h.store.armLowBalance(a.id, seq, true)));
      expect(raced.filter((r) => r)).toHaveLength(1);
      expect(await h.store.notificationSettings(a.id)).toMatchObject({
        lowBalanceArmed: true,
        lowBalanceSeq: seq + 1,
      });
    });

    it('keeps at most `max` webhook endpoints per account, even under concurrent additions', async () => {
      const a = await account(h.store);
      const added = await Promise.all(
        [1, 2, 3, 4].map((i) => h.store.addWebhookEndpoint(a.id, `https://h${i}.example/`, `s${i}`, 2, T0)),
      );
      expect(added.filter((e) => e !== null)).toHaveLength(2);
      const list = await h.store.listWebhookEndpoints(a.id);
      expect(list).toHaveLength(2);
      expect(Object.keys(list[0] ?? {}).sort()).toEqual(['accountId', 'createdAt', 'id', 'url']);
      const other = await account(h.store);
      expect(await h.store.removeWebhookEndpoint(other.id, list[0]?.id ?? '')).toBe(false);
      expect(await h.store.removeWebhookEndpoint(a.id, list[0]?.id ?? '')).toBe(true);
      expect(await h.store.listWebhookEndpoints(a.id)).toHaveLength(1);
      await expectConflict(
        h.store.addWebhookEndpoint(uid('acc_'), 'https://x.example/', 's', 2, T0),
        'not_found',
      );
    });

    it('records an event once: of 10 concurrent records of one id exactly one is true, with one set of deliveries', async () => {
      const now = T0 + 1 * HOUR;
      await drain(now);
      const a = await account(h.store);
      const e = event(a.id, now);
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          h.store.recordNotification(e, [
            { channel: 'email', target: a.email },
            { channel: 'webhook', target: 'wh_none' },
          ]),
        ),
      );
      expect(results.filter((r) => r)).toHaveLength(1);
      const claimed = await h.store.claimDeliveries('w1', now, LEASE, 50);
      expect(claimed.map((d) => d.channel).sort()).toEqual(['email', 'webhook']);
      for (const d of claimed) {
        expect(d.event).toEqual(e);
        expect(d.attempts).toBe(0);
      }
      // The webhook's endpoint does not exist: no URL, no secret.
      expect(claimed.find((d) => d.channel === 'webhook')?.webhook).toBeNull();
    });

    it('claims exclusively: concurrent claims never return one delivery twice, and a held lease blocks it', async () => {
      const now = T0 + 2 * HOUR;
      await drain(now);
      const a = await account(h.store);
      const ep = await h.store.addWebhookEndpoint(a.id, 'https://recv.example/hook', 'c2VjcmV0', 5, now);
      const targets = Array.from({ length: 12 }, () => ({
        channel: 'webhook' as const,
        target: ep?.id ?? '',
      }));
      expect(await h.store.recordNotification(event(a.id, now), targets)).toBe(true);
      const batches = await Promise.all(
        Array.from({ length: 8 }, (_, i) => h.store.claimDeliveries(`w${i}`, now, LEASE, 3)),
      );
      const ids = batches.flat().map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toHaveLength(12);
      expect(batches.flat()[0]?.webhook).toEqual({ url: 'https://recv.example/hook', secret: 'c2VjcmV0' });
      // Still leased: nothing to claim until the lease ends; then each is claimable again.
      expect(await h.store.claimDeliveries('late', now + LEASE - 1, LEASE, 50)).toHaveLength(0);
      const again = await h.store.claimDeliveries('late', now + LEASE, LEASE, 50);
      expect(again).toHaveLength(12);
      // The first holders lost their leases: their finish changes nothing.
      const first = batches[0]?.[0];
      const attempt = { at: now + LEASE, ok: true, httpStatus: 200, error: null };
      expect(await h.store.finishDelivery(first?.id ?? '', 'w0', attempt, { kind: 'delivered' })).toBe(false);
      for (const d of again) {
        expect(await h.store.finishDelivery(d.id, 'late', attempt, { kind: 'delivered' })).toBe(true);
      }
      expect(await h.store.claimDeliveries('after', now + 10 * LEASE, LEASE, 50)).toHaveLength(0);
    });

    it('retries at the given time, counts attempts, and logs them newest first', async () => {
      const now = T0 + 3 * HOUR;
      await drain(now);
      const a = await account(h.store);
      expect(
        await h.store.recordNotification(event(a.id, now), [{ channel: 'email', target: a.email }]),
      ).toBe(true);
      const [d] = await h.store.claimDeliveries('w', now, LEASE, 10);
      if (!d) throw new Error('nothing claimed');
      const fail = { at: now, ok: false, httpStatus: 503, error: null };
      expect(await h.store.finishDelivery(d.id, 'w', fail, { kind: 'retry', at: now + 1_000 })).toBe(true);
      expect(await h.store.claimDeliveries('w', now + 999, LEASE, 10)).toHaveLength(0);
      const [d2] = await h.store.claimDeliveries('w', now + 1_000, LEASE, 10);
      expect(d2?.attempts).toBe(1);
      const ok = { at: now + 1_000, ok: true, httpStatus: null, error: null };
      expect(await h.store.finishDelivery(d.id, 'w', ok, { kind: 'delivered' })).toBe(true);
      const log = await h.store.deliveryLog(a.id, 10);
      expect(log.map((l) => [l.attempt, l.ok, l.httpStatus, l.channel, l.target, l.type])).toEqual([
        [2, true, null, 'email', a.email, 'notification.test'],
        [1, false, 503, 'email', a.email, 'notification.test'],
      ]);
      expect(await h.store.deliveryLog((await account(h.store)).id, 10)).toEqual([]);
    });

    it('prunes old events with their finished deliveries and attempts, keeping pending ones', async () => {
      const old = T0 - 100 * 24 * HOUR;
      await drain(T0 + 4 * HOUR);
      const a = await account(h.store);
      const done = event(a.id, old);
      const waiting = event(a.id, old);
      const to = [{ channel: 'email' as const, target: a.email }];
      expect(await h.store.recordNotification(done, to)).toBe(true);
      const [d] = (await h.store.claimDeliveries('p', old, LEASE, 100)).filter((x) => x.event.id === done.id);
      const attempt = { at: old, ok: true, httpStatus: null, error: null };
      expect(await h.store.finishDelivery(d?.id ?? '', 'p', attempt, { kind: 'delivered' })).toBe(true);
      expect(await h.store.recordNotification(waiting, to)).toBe(true);
      expect(await h.store.deliveryLog(a.id, 10)).toHaveLength(1);
      expect(await h.store.pruneNotifications(old - 1)).toBe(0);
      expect(await h.store.pruneNotifications(T0 - 90 * 24 * HOUR)).toBeGreaterThanOrEqual(1);
      expect(await h.store.deliveryLog(a.id, 10)).toEqual([]);
      // The pending delivery and its event stay: still claimable, and its id still records once.
      expect(await h.store.recordNotification(waiting, to)).toBe(false);
      const left = (await h.store.claimDeliveries('p', T0, LEASE, 100)).filter((x) => x.accountId === a.id);
      expect(left.map((x) => x.event.id)).toEqual([waiting.id]);
      await drain(T0 + 5 * HOUR);
    });

    it('lists Unlimited packages and plans ending within a window, and not revoked or past ones', async () => {
      const a = await account(h.store);
      const until = T0 + 100 * HOUR;
      await h.store.setUnlimitedUntil(a.id, until);
      const k = await h.store.createKey(
        { accountId: a.id, hash: uid('h'), prefix: 'gk_abcde', kind: 'unlimited', packageUntil: until + 1 },
        T0,
      );
      const gone = await h.store.createKey(
        { accountId: a.id, hash: uid('h'), prefix: 'gk_abcde', kind: 'unlimited', packageUntil: until },
        T0,
      );
      await h.store.revokeKey(gone.id, T0);
      const mine = (from: number, to: number) =>
        h.store.unlimitedEnding(from, to).then((l) => l.filter((e) => e.accountId === a.id));
      expect(await mine(T0, until + 1)).toEqual(
        expect.arrayContaining([
          { accountId: a.id, keyId: null, until },
          { accountId: a.id, keyId: k.id, until: until + 1 },
        ]),
      );
      expect(await mine(T0, until + 1)).toHaveLength(2);
      expect(await mine(until + 1, until + HOUR)).toHaveLength(0);
    });
  });
}

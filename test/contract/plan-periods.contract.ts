/**
 * Contract: rule set B's Unlimited plan bought by payments (migration 013, gateway/store/plan-periods.ts). A payment
 * extends the plan from its current end (or from now when it has ended) by its days, with one receipt of kind 'plan',
 * exactly once per payment ref, also under concurrent deliveries; concurrent payments of one account each add their
 * days; the operator's by-hand end is where the next period starts; a refused purchase changes nothing and takes no
 * receipt number.
 */
import type { ReceiptInput } from '../../gateway/store/receipts';
import type { Receipt } from '../../gateway/store/receipts';
import type { Store } from '../../gateway/store/ports';
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, T0, uid } from './helpers';

const DAY = 86_400_000;
const CARD: ReceiptInput = {
  method: 'card',
  currency: 'credits',
  paid: { minor: 19_900, currency: 'EUR' },
};
const seqOf = (r: Receipt): number => Number(r.number.split('-')[1]);

/** The next receipt number of T0's series, read by issuing one on a throwaway account. */
async function probe(store: Store): Promise<number> {
  const a = await account(store);
  return seqOf(
    (await store.creditWithReceipt(a.id, 1, null, T0, { method: 'test', currency: 'credits' })).receipt,
  );
}

/** Plan periods. */
export function planPeriodRules(h: StoreHolder): void {
  describe('Unlimited plan periods', () => {
    it('a payment on credits starts the plan now for its days, with a receipt of kind plan', async () => {
      const a = await account(h.store);
      const ref = uid('stripe:cs_');
      const r = await h.store.buyPlanPeriod(
        a.id,
        { ref, days: 30, receipt: { ...CARD, paymentRef: uid('pi_') } },
        T0,
      );
      expect(r.replayed).toBe(false);
      expect(r.account.unlimitedUntil).toBe(T0 + 30 * DAY);
      expect((await h.store.getAccount(a.id))?.unlimitedUntil).toBe(T0 + 30 * DAY);
      expect(r.period).toMatchObject({
        accountId: a.id,
        ref,
        startsAt: T0,
        endsAt: T0 + 30 * DAY,
        days: 30,
        method: 'card',
        paid: { minor: 19_900, currency: 'EUR' },
        receiptNumber: r.receipt.number,
        createdAt: T0,
      });
      expect(r.receipt).toMatchObject({
        accountId: a.id,
        kind: 'plan',
        method: 'card',
        amount: 0,
        paid: { minor: 19_900, currency: 'EUR' },
        sourceId: r.period.id,
        issuedAt: T0,
      });
      expect(await h.store.listReceipts(a.id, 10)).toEqual([r.receipt]);
      expect(await h.store.planPeriods(a.id, 10)).toEqual([r.period]);
    });

    it('a renewal before the end extends from the current end; after the end it starts from now', async () => {
      const a = await account(h.store);
      const first = await h.store.buyPlanPeriod(a.id, { ref: uid('test:'), days: 30, receipt: CARD }, T0);
      const renewed = await h.store.buyPlanPeriod(
        a.id,
        { ref: uid('test:'), days: 30, receipt: CARD },
        T0 + 10 * DAY,
      );
      expect(renewed.period.startsAt).toBe(first.period.endsAt);
      expect(renewed.account.unlimitedUntil).toBe(T0 + 60 * DAY);
      // 70 days in, the plan ended 10 days ago: the next period starts at the payment.
      const late = T0 + 70 * DAY;
      const after = await h.store.buyPlanPeriod(a.id, { ref: uid('test:'), days: 7, receipt: CARD }, late);
      expect(after.period.startsAt).toBe(late);
      expect(after.account.unlimitedUntil).toBe(late + 7 * DAY);
      expect((await h.store.planPeriods(a.id, 10)).map((p) => p.days)).toEqual([7, 30, 30]);
    });

    it('the week-before reminder (D30) follows the bought end: a renewal moves it', async () => {
      const a = await account(h.store);
      const ending = async (from: number) =>
        (await h.store.unlimitedEnding(from, from + 7 * DAY)).filter((e) => e.accountId === a.id);
      await h.store.buyPlanPeriod(a.id, { ref: uid('test:'), days: 30, receipt: CARD }, T0);
      expect(await ending(T0 + 23 * DAY)).toEqual([{ accountId: a.id, keyId: null, until: T0 + 30 * DAY }]);
      await h.store.buyPlanPeriod(a.id, { ref: uid('test:'), days: 30, receipt: CARD }, T0 + 24 * DAY);
      expect(await ending(T0 + 24 * DAY)).toEqual([]);
      expect(await ending(T0 + 53 * DAY)).toEqual([{ accountId: a.id, keyId: null, until: T0 + 60 * DAY }]);
    });

    it('repeated and concurrent deliveries of one payment extend once and take one receipt number', async () => {
      const a = await account(h.store);
      const ref = uid('btcpay:');
      const crypto: ReceiptInput = {
        method: 'crypto',
        currency: 'credits',
        paid: { minor: 500, currency: 'EUR' },
      };
      const all = await Promise.all(
        Array.from({ length: 6 }, () => h.store.buyPlanPeriod(a.id, { ref, days: 30, receipt: crypto }, T0)),
      );
      expect(all.filter((r) => !r.replayed)).toHaveLength(1);
      for (const r of all) {
        expect(r.period).toEqual(all[0]?.period);
        expect(r.receipt).toEqual(all[0]?.receipt);
        expect(r.account.unlimitedUntil).toBe(T0 + 30 * DAY);
      }
      const later = await h.store.buyPlanPeriod(a.id, { ref, days: 30, receipt: crypto }, T0 + DAY);
      expect(later.replayed).toBe(true);
      expect((await h.store.getAccount(a.id))?.unlimitedUntil).toBe(T0 + 30 * DAY);
      expect(await h.store.planPeriods(a.id, 10)).toHaveLength(1);
      expect(await h.store.listReceipts(a.id, 10)).toHaveLength(1);
      expect(await probe(h.store)).toBe(seqOf(all[0]!.receipt) + 1);
    });

    it('concurrent payments of one account each add their days', async () => {
      const a = await account(h.store);
      const results = await Promise.all(
        [30, 30, 7, 1].map((days) =>
          h.store.buyPlanPeriod(a.id, { ref: uid('stripe:'), days, receipt: CARD }, T0),
        ),
      );
      expect((await h.store.getAccount(a.id))?.unlimitedUntil).toBe(T0 + 68 * DAY);
      // The periods tile the time without a gap or an overlap.
      const periods = results.map((r) => r.period).sort((x, y) => x.startsAt - y.startsAt);
      expect(periods[0]?.startsAt).toBe(T0);
      for (let i = 1; i < periods.length; i += 1) expect(periods[i]?.startsAt).toBe(periods[i - 1]?.endsAt);
      // Listed newest first: bought at the same moment, the later period first.
      const listed = (await h.store.planPeriods(a.id, 10)).map((p) => p.startsAt);
      expect(listed).toEqual(periods.map((p) => p.startsAt).reverse());
    });

    it("the operator's by-hand end is where the next period starts; ending the plan by hand is final", async () => {
      const a = await account(h.store);
      await h.store.setUnlimitedUntil(a.id, T0 + 100 * DAY);
      const r = await h.store.buyPlanPeriod(a.id, { ref: uid('test:'), days: 30, receipt: CARD }, T0);
      expect(r.period.startsAt).toBe(T0 + 100 * DAY);
      expect(r.account.unlimitedUntil).toBe(T0 + 130 * DAY);
      await h.store.setUnlimitedUntil(a.id, null);
      expect((await h.store.getAccount(a.id))?.unlimitedUntil).toBeNull();
      const again = await h.store.buyPlanPeriod(
        a.id,
        { ref: uid('test:'), days: 30, receipt: CARD },
        T0 + DAY,
      );
      expect(again.period.startsAt).toBe(T0 + DAY);
    });

    it('a refused purchase changes nothing and takes no receipt number', async () => {
      const a = await account(h.store);
      const other = await account(h.store);
      const ref = uid('stripe:');
      const first = await h.store.buyPlanPeriod(a.id, { ref, days: 30, receipt: CARD }, T0);
      await expectConflict(
        h.store.buyPlanPeriod(other.id, { ref, days: 30, receipt: CARD }, T0),
        'idempotency_mismatch',
      );
      await expectConflict(
        h.store.buyPlanPeriod(a.id, { ref: uid('x:'), days: 0, receipt: CARD }, T0),
        'invalid_input',
      );
      await expectConflict(
        h.store.buyPlanPeriod(a.id, { ref: 'bad ref', days: 1, receipt: CARD }, T0),
        'invalid_input',
      );
      await expectConflict(
        h.store.buyPlanPeriod(a.id, { ref: uid('x:'), days: 1, receipt: { ...CARD, currency: 'eur' } }, T0),
        'invalid_input',
      );
      await expectConflict(
        h.store.buyPlanPeriod('acc_nope', { ref: uid('x:'), days: 1, receipt: CARD }, T0),
        'not_found',
      );
      await expectConflict(h.store.planPeriods('acc_nope', 10), 'not_found');
      const gone = await account(h.store);
      await h.store.deleteAccount(gone.id, `deleted-${gone.id}@deleted.invalid`, T0);
      await expectConflict(
        h.store.buyPlanPeriod(gone.id, { ref: uid('x:'), days: 1, receipt: CARD }, T0),
        'account_deleted',
      );
      expect((await h.store.getAccount(a.id))?.unlimitedUntil).toBe(T0 + 30 * DAY);
      expect((await h.store.getAccount(other.id))?.unlimitedUntil).toBeNull();
      expect(await h.store.planPeriods(other.id, 10)).toEqual([]);
      expect(await h.store.listReceipts(other.id, 10)).toEqual([]);
      expect(await probe(h.store)).toBe(seqOf(first.receipt) + 1);
    });
  });
}

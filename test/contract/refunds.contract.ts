/**
 * Contract: refunds of paid top-ups (D16, D31; gateway/store/refunds.ts). A refund takes the part of its claim's
 * running total not taken yet from the balance, never below zero (the rest is owed, on the receipts), with one
 * adjustment row in the ledger and one credit note, exactly once per event, also when events repeat, arrive out of
 * order or at once; refunds of one top-up never pass its amount.
 */
import type { ReceiptInput } from '../../gateway/store/receipts';
import type { RefundInput } from '../../gateway/store/refunds';
import type { Store } from '../../gateway/store/ports';
import { expectConflict } from './accounts.contract';
import type { StoreHolder } from './helpers';
import { account, T0, uid } from './helpers';

const card = (paymentRef: string): ReceiptInput => ({
  method: 'card',
  currency: 'credits',
  paid: { minor: 1000, currency: 'EUR' },
  paymentRef,
});

/** An account with a 1000-unit card top-up paid by a new payment; returns both. */
async function paidTopUp(store: Store): Promise<{ accountId: string; pi: string; number: string }> {
  const a = await account(store);
  const pi = uid('pi_');
  const r = await store.creditWithReceipt(a.id, 1000, uid('stripe:cs_'), T0, card(pi));
  return { accountId: a.id, pi, number: r.receipt.number };
}

const refund = (pi: string, claim: string, total: number, o: Partial<RefundInput> = {}): RefundInput => ({
  paymentRef: pi,
  claim,
  total,
  eventRef: uid('stripe:evt_'),
  ...o,
});

async function balance(store: Store, id: string): Promise<number> {
  return (await store.getAccount(id))?.balance ?? NaN;
}

/** Refunds and lost disputes. */
export function refundRules(h: StoreHolder): void {
  describe('refunds', () => {
    it('a full refund empties the top-up: one adjustment row, one credit note, the receipt marked refunded', async () => {
      const t = await paidTopUp(h.store);
      const input = refund(t.pi, 'refund:ch_1', 1000);
      const r = await h.store.refundTopUp(input, T0 + 1000);
      expect(r).toMatchObject({ status: 'applied', accountId: t.accountId, removed: 1000, owed: 0 });
      expect(r.creditNote).toMatchObject({
        kind: 'credit_note',
        method: 'card',
        amount: 1000,
        currency: 'credits',
        paid: { minor: 1000, currency: 'EUR' },
        creditOf: t.number,
        refunded: 1000,
        owed: 0,
      });
      expect(await balance(h.store, t.accountId)).toBe(0);
      const ledger = await h.store.ledger(t.accountId, 10);
      expect(ledger.map((e) => [e.kind, e.amount])).toEqual([
        ['adjustment', -1000],
        ['topup', 1000],
      ]);
      expect(ledger[0]?.ref).toMatch(/^refund:/);
      expect(await h.store.getReceipt(t.accountId, t.number)).toMatchObject({ refunded: 1000, owed: 0 });
      expect(await h.store.getReceipt(t.accountId, r.creditNote?.number ?? '')).toEqual(r.creditNote);

      // The same event again, also several at once: nothing more, the same credit note.
      const again = await Promise.all([1, 2, 3].map(() => h.store.refundTopUp(input, T0 + 2000)));
      for (const x of again) {
        expect(x).toMatchObject({ status: 'replayed', removed: 0, owed: 0 });
        expect(x.creditNote?.number).toBe(r.creditNote?.number);
      }
      expect(await h.store.ledger(t.accountId, 10)).toHaveLength(2);
      expect(await h.store.listReceipts(t.accountId, 10)).toHaveLength(2);
    });

    it('partial refunds take what their running total adds; an older total arriving late takes nothing', async () => {
      const t = await paidTopUp(h.store);
      expect((await h.store.refundTopUp(refund(t.pi, 'refund:ch_2', 300), T0 + 1)).removed).toBe(300);
      expect((await h.store.refundTopUp(refund(t.pi, 'refund:ch_2', 700), T0 + 2)).removed).toBe(400);
      const late = await h.store.refundTopUp(refund(t.pi, 'refund:ch_2', 300), T0 + 3);
      expect(late).toMatchObject({ status: 'replayed', removed: 0 });
      expect(await balance(h.store, t.accountId)).toBe(300);
      expect(await h.store.getReceipt(t.accountId, t.number)).toMatchObject({ refunded: 700, owed: 0 });
      // A lost dispute on top takes only what is left of the top-up.
      const dispute = await h.store.refundTopUp(refund(t.pi, 'dispute:dp_1', 1000), T0 + 4);
      expect(dispute).toMatchObject({ status: 'applied', removed: 300, owed: 0 });
      expect(dispute.creditNote?.amount).toBe(300);
      expect(await h.store.refundTopUp(refund(t.pi, 'refund:ch_2', 1000), T0 + 5)).toMatchObject({
        status: 'replayed',
      });
      expect(await balance(h.store, t.accountId)).toBe(0);
      const ledger = await h.store.ledger(t.accountId, 10);
      expect(ledger.reduce((s, e) => s + e.amount, 0)).toBe(0);
      expect(ledger.filter((e) => e.kind === 'adjustment')).toHaveLength(3);
    });

    it('never takes the balance below zero: what was spent is recorded as owed on both receipts', async () => {
      const t = await paidTopUp(h.store);
      await h.store.buyPackage(
        t.accountId,
        800,
        {
          accountId: t.accountId,
          hash: uid('hash_'),
          prefix: 'gk_pkg',
          kind: 'unlimited',
          packageUntil: T0 + 1e9,
        },
        T0 + 1,
      );
      const r = await h.store.refundTopUp(refund(t.pi, 'dispute:dp_2', 1000), T0 + 2);
      expect(r).toMatchObject({ status: 'applied', removed: 200, owed: 800 });
      expect(r.creditNote).toMatchObject({ amount: 1000, refunded: 1000, owed: 800 });
      expect(await balance(h.store, t.accountId)).toBe(0);
      expect(await h.store.getReceipt(t.accountId, t.number)).toMatchObject({ refunded: 1000, owed: 800 });
      const adjustments = (await h.store.ledger(t.accountId, 10)).filter((e) => e.kind === 'adjustment');
      expect(adjustments.map((e) => e.amount)).toEqual([-200]);
    });

    it('an account at zero owes the whole refund and gets no ledger row', async () => {
      const t = await paidTopUp(h.store);
      await h.store.refundTopUp(refund(t.pi, 'refund:ch_3', 1000), T0 + 1);
      const other = await h.store.refundTopUp(refund(t.pi, 'dispute:dp_3', 1000), T0 + 2);
      expect(other).toMatchObject({ status: 'replayed', removed: 0, owed: 0 }); // nothing left of the top-up
      const u = await paidTopUp(h.store);
      await h.store.buyPackage(
        u.accountId,
        1000,
        {
          accountId: u.accountId,
          hash: uid('hash_'),
          prefix: 'gk_pkg',
          kind: 'unlimited',
          packageUntil: T0 + 1e9,
        },
        T0 + 1,
      );
      expect(await h.store.refundTopUp(refund(u.pi, 'refund:ch_4', 250), T0 + 2)).toMatchObject({
        status: 'applied',
        removed: 0,
        owed: 250,
      });
      expect((await h.store.ledger(u.accountId, 10)).filter((e) => e.kind === 'adjustment')).toEqual([]);
      expect(await h.store.getReceipt(u.accountId, u.number)).toMatchObject({ refunded: 250, owed: 250 });
    });

    it('concurrent events of one payment take its total exactly once', async () => {
      const t = await paidTopUp(h.store);
      const events = [
        ...Array.from({ length: 6 }, (_, i) => refund(t.pi, 'refund:ch_5', 100 * (i + 1))),
        ...Array.from({ length: 4 }, () => refund(t.pi, 'dispute:dp_5', 600)),
      ];
      const results = await Promise.all(events.map((e) => h.store.refundTopUp(e, T0 + 1)));
      const taken = results.reduce((s, r) => s + r.removed + r.owed, 0);
      expect(taken).toBe(1000);
      expect(await balance(h.store, t.accountId)).toBe(0);
      const ledger = await h.store.ledger(t.accountId, 50);
      expect(ledger.reduce((s, e) => s + e.amount, 0)).toBe(0);
      const notes = (await h.store.listReceipts(t.accountId, 50)).filter((r) => r.kind === 'credit_note');
      expect(notes.reduce((s, n) => s + n.amount, 0)).toBe(1000);
      expect(notes).toHaveLength(results.filter((r) => r.status === 'applied').length);
    });

    it('an unknown payment changes nothing; bad input is refused', async () => {
      const t = await paidTopUp(h.store);
      expect(await h.store.refundTopUp(refund('pi_unknown', 'refund:ch_6', 1000), T0)).toEqual({
        status: 'unknown_payment',
        accountId: null,
        removed: 0,
        owed: 0,
        creditNote: null,
      });
      await expectConflict(h.store.refundTopUp(refund(t.pi, 'refund:ch_6', -1), T0), 'invalid_input');
      await expectConflict(h.store.refundTopUp(refund(t.pi, 'refund:ch_6', 1.5), T0), 'invalid_input');
      await expectConflict(h.store.refundTopUp(refund(t.pi, '', 1), T0), 'invalid_input');
      expect(await balance(h.store, t.accountId)).toBe(1000);
    });
  });
}

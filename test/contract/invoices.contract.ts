/**
 * Contract: invoices (gateway/store/invoices.ts). A receipt issued with the operator's invoicing is an invoice: the
 * seller and tax as they were, the buyer's country from the billing details, net + tax = gross in whole minor units;
 * one issued without stays a plain receipt. Credit notes of an invoice take the refunded share and, once the top-up
 * is refunded in full, add up to the invoice exactly; invoices and credit notes share the receipts' gapless series.
 */
import type { InvoicePolicy } from '../../gateway/store/invoices';
import type { Receipt, ReceiptInput } from '../../gateway/store/receipts';
import type { StoreHolder } from './helpers';
import { account, T0, uid } from './helpers';
import { expectConflict } from './accounts.contract';

const POLICY: InvoicePolicy = {
  seller: {
    name: 'Atlas Geo GmbH',
    address: 'Hauptstr. 1\n10115 Berlin',
    vatId: 'DE123456789',
    country: 'DE',
  },
  rates: { DE: 1900, FR: 2000 },
  reverseCharge: true,
  moneyDecimals: 4,
  creditPrice: null,
};

const card = (paymentRef: string, minor: number): ReceiptInput => ({
  method: 'card',
  currency: 'credits',
  paid: { minor, currency: 'EUR' },
  paymentRef,
  invoicing: POLICY,
});

const seqOf = (r: Receipt): number => Number(r.number.split('-')[1]);

/** Invoices on the store. */
export function invoiceRules(h: StoreHolder): void {
  describe('invoices', () => {
    it('keeps the billing country and refuses one that is not an ISO code (invalid_input)', async () => {
      const a = await account(h.store);
      const set = await h.store.setBilling(
        a.id,
        { name: 'Ada', address: null, vatId: null, country: 'FR' },
        T0,
      );
      expect(set).toEqual({ name: 'Ada', address: null, vatId: null, country: 'FR' });
      expect(await h.store.getBilling(a.id)).toEqual(set);
      await expectConflict(
        h.store.setBilling(a.id, { name: 'Ada', address: null, vatId: null, country: 'XX' }, T0),
        'invalid_input',
      );
      expect(await h.store.getBilling(a.id)).toEqual(set);
    });

    it('issues an invoice with a top-up: seller, buyer country, rate and net + tax = gross; without invoicing a receipt', async () => {
      const a = await account(h.store);
      await h.store.setBilling(a.id, { name: 'Ada SARL', address: '1 rue', vatId: null, country: 'FR' }, T0);
      const r = await h.store.creditWithReceipt(a.id, 1000, uid('stripe:'), T0, card(uid('pi_'), 1199));
      expect(r.receipt.invoice).toEqual({
        seller: POLICY.seller,
        buyerCountry: 'FR',
        scheme: 'vat',
        taxCountry: 'FR',
        rateBp: 2000,
        currency: 'EUR',
        exponent: 2,
        net: 999, // 1199 / 1.2 = 999.17
        tax: 200,
        gross: 1199,
      });
      expect(r.receipt.billing.country).toBe('FR');
      expect(await h.store.getReceipt(a.id, r.receipt.number)).toEqual(r.receipt);

      const plain = await h.store.creditWithReceipt(a.id, 5, null, T0 + 1, {
        method: 'test',
        currency: 'EUR',
      });
      expect(plain.receipt.invoice).toBeNull();
      expect(seqOf(plain.receipt)).toBeGreaterThan(seqOf(r.receipt));

      // A later change of the seller (a reload) or the billing does not touch an invoice issued.
      await h.store.setBilling(a.id, { name: 'Other', address: null, vatId: null }, T0 + 2);
      expect((await h.store.getReceipt(a.id, r.receipt.number))?.invoice).toEqual(r.receipt.invoice);
    });

    it('reverse-charges an EU business abroad with a VAT id of valid format; A money is invoiced in cents', async () => {
      const a = await account(h.store);
      await h.store.setBilling(
        a.id,
        { name: 'Ada SARL', address: null, vatId: 'FR12345678901', country: 'FR' },
        T0,
      );
      const r = await h.store.creditWithReceipt(a.id, 200_000, uid('test:'), T0, {
        method: 'test',
        currency: 'EUR',
        invoicing: POLICY,
      });
      expect(r.receipt.invoice).toMatchObject({
        scheme: 'reverse_charge',
        rateBp: 0,
        taxCountry: null,
        net: 2000,
        tax: 0,
        gross: 2000,
        exponent: 2,
      });
    });

    it('a package bought from the balance gets its invoice', async () => {
      const a = await account(h.store);
      await h.store.credit(a.id, 600_000, null, T0);
      const r = await h.store.buyPackageWithReceipt(
        a.id,
        500_000,
        {
          accountId: a.id,
          hash: uid('hash_'),
          prefix: 'gk_pkg',
          kind: 'unlimited',
          packageUntil: T0 + 86_400_000,
        },
        T0,
        { method: 'balance', currency: 'EUR', invoicing: POLICY },
      );
      expect(r.receipt.invoice).toMatchObject({
        scheme: 'vat',
        rateBp: 1900,
        net: 4202,
        tax: 798,
        gross: 5000,
      });
    });

    it("refunds in parts: each credit note is the refunded share, together the invoice's amounts exactly", async () => {
      const a = await account(h.store);
      await h.store.setBilling(a.id, { name: 'Ada', address: null, vatId: null, country: 'DE' }, T0);
      const pi = uid('pi_');
      const top = await h.store.creditWithReceipt(a.id, 1000, uid('stripe:'), T0, card(pi, 1001));
      const inv = top.receipt.invoice!;
      expect(inv).toMatchObject({ gross: 1001, tax: 160, net: 841 });
      const notes: Receipt[] = [];
      for (const total of [333, 334, 1000]) {
        const r = await h.store.refundTopUp(
          { paymentRef: pi, claim: 'refund:ch_1', total, eventRef: uid('evt_') },
          T0 + total,
        );
        expect(r.status).toBe('applied');
        notes.push(r.creditNote!);
      }
      expect(notes.map((n) => n.creditOf)).toEqual([
        top.receipt.number,
        top.receipt.number,
        top.receipt.number,
      ]);
      for (const n of notes) {
        expect(n.invoice!.net + n.invoice!.tax).toBe(n.invoice!.gross);
        expect(n.invoice!.seller).toEqual(inv.seller);
      }
      // 333 of 1000 units of 10.01 EUR: 3.33; the next unit: 0.01; the rest: 6.67.
      expect(notes.map((n) => n.invoice!.gross)).toEqual([333, 1, 667]);
      const sum = (k: 'net' | 'tax' | 'gross') => notes.reduce((s, n) => s + n.invoice![k], 0);
      expect([sum('net'), sum('tax'), sum('gross')]).toEqual([inv.net, inv.tax, inv.gross]);
      // The same gapless series: each credit note takes the next number.
      const seqs = notes.map(seqOf);
      expect(seqs[1]! - seqs[0]!).toBeGreaterThanOrEqual(1);
      expect(new Set(seqs).size).toBe(3);
      expect(await h.store.getReceipt(a.id, notes[2]!.number)).toEqual(notes[2]);
    });

    it('concurrent refunds of one invoice (several claims at once) still add up to it exactly', async () => {
      const a = await account(h.store);
      const pi = uid('pi_');
      const top = await h.store.creditWithReceipt(a.id, 999, uid('stripe:'), T0, card(pi, 1003));
      const inv = top.receipt.invoice!;
      const results = await Promise.all(
        [1, 2, 3, 4, 5].map((i) =>
          h.store.refundTopUp(
            { paymentRef: pi, claim: `refund:ch_${i}`, total: 200, eventRef: uid('evt_') },
            T0 + i,
          ),
        ),
      );
      const notes = results.map((r) => r.creditNote).filter((n): n is Receipt => n !== null);
      expect(notes.reduce((s, n) => s + n.refunded, 0)).toBe(999);
      const sum = (k: 'net' | 'tax' | 'gross') => notes.reduce((s, n) => s + n.invoice![k], 0);
      expect([sum('net'), sum('tax'), sum('gross')]).toEqual([inv.net, inv.tax, inv.gross]);
    });

    it("B's Unlimited plan bought with money gets its invoice; one that names no money gets none", async () => {
      const a = await account(h.store);
      await h.store.setBilling(a.id, { name: 'Ada', address: null, vatId: null, country: 'DE' }, T0);
      const paid = await h.store.buyPlanPeriod(
        a.id,
        { ref: uid('stripe:cs_'), days: 30, receipt: { ...card(uid('pi_'), 19_900), paymentRef: null } },
        T0,
      );
      expect(paid.receipt.invoice).toMatchObject({
        scheme: 'vat',
        rateBp: 1900,
        net: 16_723,
        tax: 3177,
        gross: 19_900,
      });
      const none = await h.store.buyPlanPeriod(
        a.id,
        { ref: uid('test:'), days: 30, receipt: { method: 'test', currency: 'credits', invoicing: POLICY } },
        T0,
      );
      expect(none.receipt.invoice).toBeNull();
    });

    it('refunds of a receipt without an invoice give credit notes without one', async () => {
      const a = await account(h.store);
      const pi = uid('pi_');
      await h.store.creditWithReceipt(a.id, 1000, uid('stripe:'), T0, { ...card(pi, 1000), invoicing: null });
      const r = await h.store.refundTopUp(
        { paymentRef: pi, claim: 'refund:ch_1', total: 1000, eventRef: uid('e') },
        T0,
      );
      expect(r.creditNote?.invoice).toBeNull();
    });
  });
}

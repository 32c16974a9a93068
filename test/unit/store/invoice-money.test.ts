/**
 * Invoice money (gateway/store/invoices.ts): the rounding rule and the sums, as properties over every amount and
 * rate (fast-check), and the tax treatment's cases. Net + tax = gross to the minor unit on each invoice, on each
 * credit note, and across the credit notes of a refund in any number of parts; what the documents print adds up too.
 */
import fc from 'fast-check';
import {
  creditNoteInvoice,
  euVatIdProblem,
  grossOf,
  invoiceFor,
  splitGross,
  taxTreatment,
  type Invoice,
  type InvoicePolicy,
} from '../../../gateway/store/invoices';
import type { Receipt } from '../../../gateway/store/receipts';
import { rateBasisPoints } from '../../../dashboard/invoice-config';
import { receiptDoc } from '../../../dashboard/receipt-doc';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';

const SELLER = {
  name: 'Atlas Geo GmbH',
  address: 'Hauptstr. 1\n10115 Berlin',
  vatId: 'DE123456789',
  country: 'DE',
};
const POLICY: InvoicePolicy = {
  seller: SELLER,
  rates: { DE: 1900, FR: 2000, CH: 810 },
  reverseCharge: true,
  moneyDecimals: 4,
  creditPrice: null,
};

const gross = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const rate = fc.integer({ min: 0, max: 10_000 });

describe('splitGross: the rounding rule', () => {
  it('net + tax = gross exactly, both ≥ 0, and tax is within half a minor unit of the exact share', () => {
    fc.assert(
      fc.property(gross, rate, (g, r) => {
        const { net, tax } = splitGross(g, r);
        expect(Number.isSafeInteger(net) && Number.isSafeInteger(tax)).toBe(true);
        expect(net + tax).toBe(g);
        expect(tax).toBeGreaterThanOrEqual(0);
        expect(net).toBeGreaterThanOrEqual(0);
        // |tax − g·r/(1+r)| ≤ ½, in integers: |2·tax·(10000+r) − 2·g·r| ≤ 10000+r.
        const d = 10_000n + BigInt(r);
        const err = 2n * BigInt(tax) * d - 2n * BigInt(g) * BigInt(r);
        expect(err <= d && -err <= d).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('rounds halves up, and one more minor unit of gross adds 0 or 1 to the tax', () => {
    expect(splitGross(1190, 1900)).toEqual({ net: 1000, tax: 190 });
    expect(splitGross(100, 1900)).toEqual({ net: 84, tax: 16 }); // 15.966 → 16
    expect(splitGross(1, 10_000)).toEqual({ net: 0, tax: 1 }); // exactly ½ → up
    expect(splitGross(3, 10_000)).toEqual({ net: 1, tax: 2 }); // 1.5 → 2
    expect(splitGross(2000, 0)).toEqual({ net: 2000, tax: 0 });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 50 }), rate, (g, r) => {
        const step = splitGross(g + 1, r).tax - splitGross(g, r).tax;
        expect(step === 0 || step === 1).toBe(true);
      }),
    );
  });

  it('refuses what is not a whole amount or a rate', () => {
    expect(() => splitGross(1.5, 1900)).toThrow(RangeError);
    expect(() => splitGross(-1, 1900)).toThrow(RangeError);
    expect(() => splitGross(100, 10_001)).toThrow(RangeError);
  });
});

describe('credit notes: the refunded share of an invoice', () => {
  /** An amount of units and a split of it into refund parts (each ≥ 1). */
  const refundPlan = fc
    .array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 8 })
    .map((parts) => ({ parts, amount: parts.reduce((a, b) => a + b, 0) }));

  it('each note adds up (net + tax = gross, all ≥ 0); a full refund in any parts sums to the invoice exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), rate, refundPlan, (g, r, plan) => {
        const inv: Invoice = {
          seller: SELLER,
          buyerCountry: 'DE',
          scheme: 'vat',
          taxCountry: 'DE',
          rateBp: r,
          currency: 'EUR',
          exponent: 2,
          gross: g,
          ...splitGross(g, r),
        };
        let before = 0;
        const sum = { net: 0, tax: 0, gross: 0 };
        for (const part of plan.parts) {
          const note = creditNoteInvoice(inv, plan.amount, before, part);
          expect(note.net + note.tax).toBe(note.gross);
          expect(Math.min(note.net, note.tax, note.gross)).toBeGreaterThanOrEqual(0);
          sum.net += note.net;
          sum.tax += note.tax;
          sum.gross += note.gross;
          before += part;
          // The running totals do not depend on how the refund was split: the same as one note for all so far.
          const once = creditNoteInvoice(inv, plan.amount, 0, before);
          expect(sum).toEqual({ net: once.net, tax: once.tax, gross: once.gross });
        }
        expect(sum).toEqual({ net: inv.net, tax: inv.tax, gross: inv.gross });
      }),
      { numRuns: 400 },
    );
  });

  it('never credits more than the invoice, however far the refunds go', () => {
    const inv = invoiceFor(
      POLICY,
      { vatId: null },
      { amount: 1000, currency: 'EUR', paid: { minor: 1190, currency: 'EUR' } },
    )!;
    expect(creditNoteInvoice(inv, 1000, 1000, 50).gross).toBe(0);
    expect(creditNoteInvoice(inv, 1000, 600, 900).gross).toBe(1190 - Math.floor((1190 * 600) / 1000));
  });
});

describe('grossOf: the money a receipt stands for, exactly', () => {
  it("A's units of 0.0001 EUR become cents when whole, more digits only when needed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 14 }), (units) => {
        const m = grossOf(POLICY, units, 'EUR', null)!;
        expect(m.currency).toBe('EUR');
        expect(m.exponent).toBeGreaterThanOrEqual(2);
        expect(m.exponent).toBeLessThanOrEqual(4);
        expect(BigInt(m.gross) * 10n ** BigInt(4 - m.exponent)).toBe(BigInt(units));
      }),
    );
    expect(grossOf(POLICY, 200_000, 'EUR', null)).toEqual({ gross: 2000, exponent: 2, currency: 'EUR' });
    expect(grossOf(POLICY, 123_456, 'EUR', null)).toEqual({ gross: 123_456, exponent: 4, currency: 'EUR' });
  });

  it('a payment in money decides when there is one; credits at the credit price otherwise', () => {
    expect(grossOf(POLICY, 1000, 'credits', { minor: 1250, currency: 'EUR' })).toEqual({
      gross: 1250,
      exponent: 2,
      currency: 'EUR',
    });
    expect(grossOf(POLICY, 1000, 'credits', null)).toBeNull(); // no price: no invoice
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 9 }),
        fc.constantFrom(1, 2, 4, 5, 10, 100, 1000),
        (credits, per) => {
          const m = grossOf(
            { ...POLICY, creditPrice: { currency: 'EUR', unitsPerMinorUnit: per } },
            credits,
            'credits',
            null,
          )!;
          // gross / 10^exponent EUR = credits / per cents.
          expect(BigInt(m.gross) * BigInt(per) * 100n).toBe(BigInt(credits) * 10n ** BigInt(m.exponent));
        },
      ),
    );
    // 1/3 of a cent has no exact decimal: no invoice rather than a rounded one.
    expect(
      grossOf({ ...POLICY, creditPrice: { currency: 'EUR', unitsPerMinorUnit: 3 } }, 1, 'credits', null),
    ).toBeNull();
  });
});

describe('the tax treatment', () => {
  const t = (country: string | null, vatId: string | null) => taxTreatment(POLICY, { country, vatId });
  it("charges the seller's rate at home, with no country, and to a home business", () => {
    expect(t(null, null)).toEqual({ scheme: 'vat', taxCountry: 'DE', rateBp: 1900 });
    expect(t('DE', 'DE123456789')).toEqual({ scheme: 'vat', taxCountry: 'DE', rateBp: 1900 });
  });
  it('reverse-charges an EU business in another member state whose VAT id has its format', () => {
    expect(t('FR', 'FR12345678901')).toEqual({ scheme: 'reverse_charge', taxCountry: null, rateBp: 0 });
    expect(t('GR', 'EL123456789')).toEqual({ scheme: 'reverse_charge', taxCountry: null, rateBp: 0 });
    // A malformed id, or one of another country: a consumer.
    expect(t('FR', 'FR123')).toEqual({ scheme: 'vat', taxCountry: 'FR', rateBp: 2000 });
    expect(t('FR', 'NL123456789B01')).toEqual({ scheme: 'vat', taxCountry: 'FR', rateBp: 2000 });
    expect(
      taxTreatment({ ...POLICY, reverseCharge: false }, { country: 'FR', vatId: 'FR12345678901' }).scheme,
    ).toBe('vat');
  });
  it("an EU consumer: the country's configured rate, else the seller's", () => {
    expect(t('FR', null)).toEqual({ scheme: 'vat', taxCountry: 'FR', rateBp: 2000 });
    expect(t('AT', null)).toEqual({ scheme: 'vat', taxCountry: 'DE', rateBp: 1900 });
  });
  it('outside the EU: a configured rate applies, else none (outside the scope)', () => {
    expect(t('CH', null)).toEqual({ scheme: 'vat', taxCountry: 'CH', rateBp: 810 });
    expect(t('US', 'US12345')).toEqual({ scheme: 'outside_scope', taxCountry: null, rateBp: 0 });
  });
});

describe('formats', () => {
  it('EU VAT ids: per member state, format only', () => {
    for (const ok of [
      'DE123456789',
      'ATU12345678',
      'FR1A123456789',
      'NL123456789B01',
      'IE6388047V',
      'EL123456789',
      'SE123456789001',
    ])
      expect(euVatIdProblem(ok)).toBeNull();
    expect(euVatIdProblem('DE12345678')).toBe('A DE VAT id is DE and 9 digits');
    expect(euVatIdProblem('AT12345678')).toMatch(/ATU and 8 digits/);
    expect(euVatIdProblem('GB123456789')).toBeNull(); // not an EU prefix: not checked here
  });
  it('rates: a percentage with up to two decimals, as basis points', () => {
    expect([19, '19', '7.7', '5.55', 0, '100'].map(rateBasisPoints)).toEqual([
      1900, 1900, 770, 555, 0, 10_000,
    ]);
    expect(['101', '-1', '19.555', 'x', '1e1', '019'].map(rateBasisPoints)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('the printed invoice adds up', () => {
  /** "€1,234.56" → 123456 (at the invoice's digits). */
  const minor = (text: string, exponent: number): bigint => {
    const m = /([\d,]+)(?:\.(\d+))?/.exec(text)!;
    return (
      BigInt((m[1] ?? '').replace(/,/g, '')) * 10n ** BigInt(exponent) +
      BigInt((m[2] ?? '').padEnd(exponent, '0') || '0')
    );
  };
  it('net + VAT = total on the document for every amount, rate and country', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 ** 13 }),
        rate,
        fc.constantFrom(null, 'DE', 'FR', 'AT', 'CH', 'US'),
        (units, r, country) => {
          const policy = { ...POLICY, rates: { ...POLICY.rates, DE: r } };
          const inv = invoiceFor(policy, { country, vatId: null }, { amount: units, currency: 'EUR' })!;
          const receipt: Receipt = {
            number: '2026-000001',
            accountId: 'acc_1',
            kind: 'topup',
            method: 'card',
            amount: units,
            currency: 'EUR',
            paid: null,
            billing: { name: 'Ada', address: null, vatId: null, ...(country ? { country } : {}) },
            issuedAt: Date.UTC(2026, 0, 1),
            sourceId: 'led_1',
            paymentRef: null,
            refunded: 0,
            owed: 0,
            creditOf: null,
            invoice: inv,
          };
          const doc = receiptDoc(receipt, RULE_SET_A, 'geogate', 'ada@example.com');
          const row = (label: RegExp) => doc.rows.find((x) => label.test(x.label))!.value;
          const net = minor(row(/^Net amount$/), inv.exponent);
          const tax = minor(row(/^VAT /), inv.exponent);
          expect(net + tax).toBe(minor(doc.total.value, inv.exponent));
          expect(minor(doc.total.value, inv.exponent)).toBe(BigInt(inv.gross));
        },
      ),
      { numRuns: 500 },
    );
  });
});

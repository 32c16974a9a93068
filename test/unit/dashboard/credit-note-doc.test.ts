/** A credit note reads as one (D31): titled "Credit note", naming the receipt it refunds, what was removed and owed. */
import { receiptDoc } from '../../../dashboard/receipt-doc';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import type { Receipt } from '../../../gateway/store/receipts';

const base: Receipt = {
  number: '2026-000007',
  accountId: 'acc_1',
  kind: 'credit_note',
  method: 'card',
  amount: 600_000,
  currency: 'EUR',
  paid: { minor: 6000, currency: 'EUR' },
  billing: { name: 'Ada Ltd', address: null, vatId: null },
  issuedAt: Date.UTC(2026, 10, 27),
  sourceId: 'rfd_1',
  paymentRef: null,
  refunded: 600_000,
  owed: 500_000,
  creditOf: '2026-000005',
};

test('a credit note names the refunded receipt, the credit removed, the owed rest and the money refunded', () => {
  const doc = receiptDoc(base, RULE_SET_A, 'geogate', 'ada@example.com');
  expect(doc.title).toBe('Credit note 2026-000007');
  expect(doc.rows).toEqual([
    { label: 'Item', value: 'Refund of receipt 2026-000005 (€60.00)' },
    { label: 'Payment method', value: 'Card (Stripe)' },
    { label: 'Credit removed', value: '€10.00' },
    { label: 'Owed (already spent)', value: '€50.00' },
  ]);
  expect(doc.total).toEqual({ label: 'Total refunded', value: '€60.00' });
});

test('a refunded top-up receipt shows what was refunded and owed under its amount', () => {
  const topUp: Receipt = { ...base, kind: 'topup', number: '2026-000005', creditOf: null, sourceId: 'led_1' };
  const doc = receiptDoc(topUp, RULE_SET_A, 'geogate', 'ada@example.com');
  expect(doc.title).toBe('Receipt 2026-000005');
  expect(doc.rows.slice(-2)).toEqual([
    { label: 'Refunded', value: '€60.00' },
    { label: 'Owed (already spent)', value: '€50.00' },
  ]);
  const clean = receiptDoc({ ...topUp, refunded: 0, owed: 0 }, RULE_SET_A, 'geogate', 'ada@example.com');
  expect(clean.rows.map((r) => r.label)).toEqual(['Item', 'Payment method', 'Credited']);
});

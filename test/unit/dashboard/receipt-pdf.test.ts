/** The receipt PDF (issue 15 item 3): standard fonts draw WinAnsi text only, so other characters are made drawable. */
import { receiptDoc } from '../../../dashboard/receipt-doc';
import { pdfSafe, receiptPdf } from '../../../dashboard/receipt-pdf';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';
import type { Receipt } from '../../../gateway/store/receipts';
import { pdfText } from '../../helpers/pdf-text';

describe('pdfSafe', () => {
  test.each([
    ['Café Müller & Søn', 'Café Müller & Søn'],
    ['Łukasz Żółć', 'Lukasz Zólc'],
    ['Őrség Kft.', 'Orség Kft.'],
    ['€ “quoted” – Œuvre', '€ “quoted” – Œuvre'],
    ['日本 Ωmega 🚀', '?? ?mega ?'],
    ['ﬁne', 'fine'],
  ])('%s → %s', (input, out) => {
    expect(pdfSafe(input)).toBe(out);
  });
});

test('a billing name outside WinAnsi is printed drawable, and the rest of the receipt intact', async () => {
  const r: Receipt = {
    number: '2026-000042',
    accountId: 'acc_1',
    kind: 'topup',
    method: 'test',
    amount: 600_000,
    currency: 'EUR',
    paid: null,
    billing: {
      name: 'Łukasz Żółć 日本',
      address: 'ul. Świętokrzyska 1\n00-001 Warszawa',
      vatId: 'PL1234567890',
    },
    issuedAt: Date.UTC(2026, 10, 26),
    sourceId: 'led_1',
    paymentRef: null,
    refunded: 0,
    owed: 0,
    creditOf: null,
  };
  const text = await pdfText(await receiptPdf(receiptDoc(r, RULE_SET_A, 'geogate', 'x@example.com')));
  for (const t of [
    '2026-000042',
    'Lukasz Zólc ??',
    'ul. Swietokrzyska 1',
    '00-001 Warszawa',
    '€60.00',
    'PL1234567890',
  ])
    expect(text).toContain(t);
});

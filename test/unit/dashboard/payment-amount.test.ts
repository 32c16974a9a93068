/**
 * Decimal amounts of payment providers read exactly into minor units (D16, D32): Greenfield's InvoiceData `amount`
 * is a decimal string (the API reference's example is "5.00"; BTCPay Server writes the decimal's own scale, so the
 * same amount also reads "5", "5.0" or "5.000"). Anything but a plain decimal is refused, never rounded.
 */
import { minorUnits } from '../../../dashboard/payments/amount';
import { settledTopUp, type GreenfieldInvoice } from '../../../dashboard/payments/btcpay';
import type { BtcpayConfig } from '../../../dashboard/config';

test.each([
  ['5', 500],
  ['5.0', 500],
  ['5.00', 500],
  ['5.000', 500],
  ['5.000000000000', 500],
  ['25.5', 2550],
  ['25.50', 2550],
  ['0.01', 1],
  ['0', 0],
  ['90071992547409.91', 9007199254740991],
])('%s reads as %d minor units', (text, minor) => {
  expect(minorUnits(text)).toBe(minor);
});

test.each([
  ['5.001'],
  ['5.0001'],
  ['+5.00'],
  ['-5.00'],
  ['5e0'],
  ['5.'],
  ['.5'],
  ['05.00'],
  [' 5.00'],
  ['5,00'],
  ['1,000.00'],
  ['0x5'],
  ['Infinity'],
  ['NaN'],
  [''],
  ['90071992547409.92'],
  [5],
  [null],
])('%p is refused', (text) => {
  expect(minorUnits(text)).toBeNull();
});

const CFG: BtcpayConfig = {
  url: 'https://btcpay.example',
  storeId: 'store1',
  apiKey: 'k',
  webhookSecret: 's',
  priceCurrency: 'EUR',
  unitsPerMinorUnit: 1,
};

const invoice = (amount: string): GreenfieldInvoice => ({
  id: 'inv1',
  storeId: 'store1',
  amount,
  currency: 'EUR',
  status: 'Settled',
  metadata: { accountId: 'acc_1', units: '500' },
});

test.each(['5', '5.0', '5.00', '5.000'])(
  'a settled invoice of "%s" EUR credits the 500 units asked',
  (amount) => {
    expect(settledTopUp(CFG, invoice(amount))).toEqual({ ok: true, accountId: 'acc_1', units: 500 });
  },
);

test.each(['5.01', '4.99', '5.001', '50', '0.5', '5e0', '+5'])(
  'an invoice of "%s" EUR credits nothing',
  (amount) => {
    expect(settledTopUp(CFG, invoice(amount))).toEqual({
      ok: false,
      reason: 'amount does not match the units',
    });
  },
);

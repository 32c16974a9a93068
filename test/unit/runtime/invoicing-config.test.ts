/** `dashboard.invoicing` (the seller, tax rates, reverse charge): a bad value is refused naming its field. */
import { ConfigError, validateConfig } from '../../../runtime/config';
import { invoicePolicy } from '../../../dashboard/invoice-config';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';

const GOOD = {
  seller: {
    name: 'Atlas Geo GmbH',
    address: 'Hauptstr. 1\n10115 Berlin',
    vatId: 'DE 123 456 789',
    country: 'DE',
  },
  taxRates: { DE: 19, FR: '20', LU: '17', CH: '8.1' },
};

const doc = (policy: 'A' | 'B', invoicing: unknown, extra: Record<string, unknown> = {}) => ({
  policy,
  backend: { url: 'http://127.0.0.1:1' },
  store: { kind: 'embedded', path: ':memory:' },
  keyPepper: 'p'.repeat(20),
  hosts: [{ name: 'localhost', adapter: 'native' }],
  dashboard: {
    listen: { port: 0 },
    publicUrl: 'http://dash.test',
    sessionSecret: 's'.repeat(40),
    invoicing,
    ...extra,
  },
});

const problem = (policy: 'A' | 'B', invoicing: unknown): string => {
  try {
    validateConfig(doc(policy, invoicing), 'test.yaml', {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
};

test('a good section compiles into the policy: rates in basis points, the VAT id compact', () => {
  const raw = validateConfig(doc('A', GOOD), 'test.yaml', {});
  const policy = invoicePolicy(raw.dashboard!, RULE_SET_A);
  expect(policy).toEqual({
    seller: {
      name: 'Atlas Geo GmbH',
      address: 'Hauptstr. 1\n10115 Berlin',
      vatId: 'DE123456789',
      country: 'DE',
    },
    rates: { DE: 1900, FR: 2000, LU: 1700, CH: 810 },
    reverseCharge: true,
    moneyDecimals: 4,
    creditPrice: null,
  });
});

test.each([
  [{ ...GOOD, taxRates: { DE: 19, XX: 5 } }, 'dashboard.invoicing.taxRates.XX: not an ISO 3166-1'],
  [{ ...GOOD, taxRates: { DE: '101' } }, 'dashboard.invoicing.taxRates.DE: a percentage'],
  [{ ...GOOD, taxRates: { DE: '19.555' } }, 'dashboard.invoicing.taxRates.DE: a percentage'],
  [
    { ...GOOD, taxRates: { FR: 20 } },
    "dashboard.invoicing.taxRates.DE: the seller's country (DE) needs its rate",
  ],
  [
    { ...GOOD, seller: { ...GOOD.seller, vatId: 'DE1234' } },
    'dashboard.invoicing.seller.vatId: A DE VAT id is DE and 9 digits',
  ],
  [
    { ...GOOD, seller: { ...GOOD.seller, vatId: 'FR12345678901' } },
    'dashboard.invoicing.seller.vatId: a FR VAT id does not belong',
  ],
  [{ ...GOOD, seller: { ...GOOD.seller, country: 'Germany' } }, 'dashboard.invoicing.seller.country'],
  [{ ...GOOD, seller: { ...GOOD.seller, name: '' } }, 'dashboard.invoicing.seller.name'],
  [{ ...GOOD, reverseCharge: 'yes' }, 'dashboard.invoicing.reverseCharge'],
  [{ ...GOOD, vat: 19 }, 'dashboard.invoicing.vat: unknown key'],
])('refuses %j, naming the field', (invoicing, text) => {
  expect(problem('A', invoicing)).toContain(text);
});

test("rule set B needs a credit price: the section's, or a card or crypto provider's", () => {
  expect(problem('B', GOOD)).toContain('dashboard.invoicing.creditPrice');
  const raw = validateConfig(
    doc('B', { ...GOOD, creditPrice: { currency: 'EUR', creditsPerMinorUnit: 10 } }),
    't',
    {},
  );
  expect(invoicePolicy(raw.dashboard!, RULE_SET_B)?.creditPrice).toEqual({
    currency: 'EUR',
    unitsPerMinorUnit: 10,
  });
  const stripe = {
    secretKey: 'sk_test_x',
    webhookSecret: 'whsec_x',
    priceCurrency: 'eur',
    unitsPerMinorUnit: 4,
  };
  const withCard = validateConfig(doc('B', GOOD, { payments: { provider: 'stripe', stripe } }), 't', {});
  expect(invoicePolicy(withCard.dashboard!, RULE_SET_B)?.creditPrice).toEqual({
    currency: 'EUR',
    unitsPerMinorUnit: 4,
  });
});

/** `dashboard.unlimitedPlanPrice` (rule set B's plan price on the credit page): validated, and refused in rule set A. */
import { ConfigError, validateConfig } from '../../../runtime/config';
import { decimalPrice } from '../../../dashboard/money';

const doc = (policy: 'A' | 'B', price: unknown) => ({
  policy,
  backend: { url: 'http://127.0.0.1:1' },
  store: { kind: 'embedded', path: ':memory:' },
  keyPepper: 'p'.repeat(20),
  hosts: [{ name: 'localhost', adapter: 'native' }],
  dashboard: {
    listen: { port: 0 },
    publicUrl: 'http://dash.test',
    sessionSecret: 's'.repeat(40),
    unlimitedPlanPrice: price,
  },
});

const problem = (policy: 'A' | 'B', price: unknown): string => {
  try {
    validateConfig(doc(policy, price), 'test.yaml', {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
};

test('rule set B: a decimal amount, an ISO currency and a period (month by default)', () => {
  const raw = validateConfig(doc('B', { amount: '199.00', currency: 'EUR' }), 'test.yaml', {});
  expect(raw.dashboard?.unlimitedPlanPrice).toEqual({ amount: '199.00', currency: 'EUR', period: 'month' });
});

test.each([
  [{ amount: '199,00', currency: 'EUR' }, 'amount'],
  [{ amount: '1.23456', currency: 'EUR' }, 'amount'],
  [{ amount: '-5', currency: 'EUR' }, 'amount'],
  [{ amount: '5', currency: 'eur' }, 'currency'],
  [{ amount: '5', currency: 'EUR', period: 'week' }, 'period'],
  [{ amount: '5', currency: 'EUR', vat: true }, 'vat'],
])('refuses %j, naming %s', (price, field) => {
  expect(problem('B', price)).toContain(field);
});

test('rule set A: refused, naming the field (its package price is part of the rule set)', () => {
  const message = problem('A', { amount: '199.00', currency: 'EUR' });
  expect(message).toContain('dashboard.unlimitedPlanPrice');
  expect(message).toContain('rule set A');
});

test('shown with at least the currency minor digits, more only when configured', () => {
  expect(decimalPrice('199', 'EUR')).toBe('€199.00');
  expect(decimalPrice('0.125', 'USD')).toBe('$0.125');
  expect(decimalPrice('1500', 'JPY')).toBe('¥1,500');
});

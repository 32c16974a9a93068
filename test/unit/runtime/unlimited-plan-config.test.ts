/** `dashboard.unlimitedPlan` (rule set B's plan sold in the dashboard): validated, refused in A and beside unlimitedPlanPrice. */
import { ConfigError, validateConfig } from '../../../runtime/config';
import { planOffer } from '../../../dashboard/payments/unlimited';

const doc = (policy: 'A' | 'B', extra: Record<string, unknown>) => ({
  policy,
  backend: { url: 'http://127.0.0.1:1' },
  store: { kind: 'embedded', path: ':memory:' },
  keyPepper: 'p'.repeat(20),
  hosts: [{ name: 'localhost', adapter: 'native' }],
  dashboard: { listen: { port: 0 }, publicUrl: 'http://dash.test', sessionSecret: 's'.repeat(40), ...extra },
});

const problem = (policy: 'A' | 'B', extra: Record<string, unknown>): string => {
  try {
    validateConfig(doc(policy, extra), 'test.yaml', {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the config was accepted');
};

test('rule set B: a price in cents, a currency with cents, 30 days unless told; the offer in minor units', () => {
  const raw = validateConfig(
    doc('B', { unlimitedPlan: { price: '199.00', currency: 'EUR' } }),
    'test.yaml',
    {},
  );
  expect(raw.dashboard?.unlimitedPlan).toEqual({ price: '199.00', currency: 'EUR', periodDays: 30 });
  expect(planOffer(raw.dashboard?.unlimitedPlan)).toEqual({ minor: 19_900, currency: 'EUR', days: 30 });
  const year = validateConfig(
    doc('B', { unlimitedPlan: { price: '1.00', currency: 'USD', periodDays: 365 } }),
    'test.yaml',
    {},
  );
  expect(planOffer(year.dashboard?.unlimitedPlan)).toEqual({ minor: 100, currency: 'USD', days: 365 });
});

test.each([
  [{ price: '199', currency: 'EUR' }, 'price'],
  [{ price: '199.5', currency: 'EUR' }, 'price'],
  [{ price: '0.99', currency: 'EUR' }, 'at least 1.00'],
  [{ price: '-5.00', currency: 'EUR' }, 'price'],
  [{ price: '5.00', currency: 'eur' }, 'currency'],
  [{ price: '500.00', currency: 'JPY' }, 'two decimals'],
  [{ price: '5.00', currency: 'EUR', periodDays: 0 }, 'periodDays'],
  [{ price: '5.00', currency: 'EUR', periodDays: 1.5 }, 'periodDays'],
  [{ price: '5.00', currency: 'EUR', periodDays: 3661 }, 'periodDays'],
  [{ price: '5.00', currency: 'EUR', auto: true }, 'auto'],
])('refuses %j, naming %s', (plan, field) => {
  expect(problem('B', { unlimitedPlan: plan })).toContain(field);
});

test('refused beside unlimitedPlanPrice (one price), and in rule set A (packages, not a plan)', () => {
  const both = problem('B', {
    unlimitedPlan: { price: '5.00', currency: 'EUR' },
    unlimitedPlanPrice: { amount: '5.00', currency: 'EUR' },
  });
  expect(both).toContain('dashboard.unlimitedPlanPrice');
  const a = problem('A', { unlimitedPlan: { price: '5.00', currency: 'EUR' } });
  expect(a).toContain('dashboard.unlimitedPlan');
  expect(a).toContain('rule set A');
});

/**
 * A config reload reaches a running dashboard (runtime/server.ts → createDashboard's reconfigure): its texts and the
 * rule set's limits and prices show on the next page, with the same app, sessions and mail queue.
 */
import { createDashboard } from '../../../dashboard/app';
import { ruleSetFor } from '../../../gateway/policy/ruleset';
import { signedUp, type Harness, useDashboards } from './fixture';

const dash = useDashboards();
let h: Harness;

test('product name, footer, plan price and the free allowance change on the next page; the session stays', async () => {
  h = await dash('B');
  // A rule set object of its own, as the config compiler makes one (the fixture's is the shared constant).
  h.deps = { ...h.deps, rules: ruleSetFor('B', { freePerDay: 2500 }) };
  const d = createDashboard(h.deps);
  h.app = d.app;
  const c = await signedUp(h, 'reload@example.com');
  const before = await c.get('/credit');
  expect(before.status).toBe(200);
  expect(before.text).toContain('2,500');
  expect(before.text).not.toContain('Geo Maps');

  d.reconfigure(
    {
      ...h.deps.config,
      productName: 'Geo Maps',
      footer: 'Geo Maps Ltd, 1 Example Street',
      unlimitedPlanPrice: { amount: '149.00', currency: 'EUR', period: 'month' },
    },
    ruleSetFor('B', { freePerDay: 1234 }),
  );
  const after = await c.get('/credit');
  expect(after.status).toBe(200); // the same session
  expect(after.text).toContain('Geo Maps');
  expect(after.text).toContain('Geo Maps Ltd, 1 Example Street');
  expect(after.text).toContain('1,234');
  expect(after.text).not.toContain('2,500');
  expect(after.text).toContain('149.00');
  const reference = await c.get('/api-reference');
  expect(reference.text).toContain('API reference · Geo Maps');
});

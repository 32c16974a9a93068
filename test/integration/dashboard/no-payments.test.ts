/** Issue 14 item 6: a dashboard without a `payments` section runs with top-ups disabled and says so. */
import { createDashboardApp } from '../../../dashboard/app';
import { signedUp, type Harness, useDashboards } from './fixture';

const dash = useDashboards();
let h: Harness;

describe.each([['A'], ['B']] as const)('rule set %s without payments', (set) => {
  beforeEach(async () => {
    h = await dash(set);
    const config = { ...h.deps.config };
    delete config.payments;
    h.deps = { ...h.deps, config };
    h.app = createDashboardApp(h.deps);
  });

  test('the credit page says payments are not configured and has no top-up form', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const page = await c.get('/credit');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Payments are not configured');
    expect(page.text).not.toContain('action="/credit/top-up"');
  });

  test('a top-up is refused with 503 payments_not_configured and changes nothing', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const api = await c.api('post', '/api/credit/top-ups', { amount: '5000', idempotencyKey: 'abcdefgh1' });
    expect(api.status).toBe(503);
    expect(api.body.code).toBe('payments_not_configured');
    const form = await c.form('/credit/top-up', { amount: '5000', topUpId: 'abcdefgh1' });
    expect(form.status).toBe(503);
    const account = await h.store.findAccountByEmail('kim@example.com');
    expect(account?.balance).toBe(0);
    expect(await h.store.ledger(account?.id ?? '', 10)).toEqual([]);
  });
});

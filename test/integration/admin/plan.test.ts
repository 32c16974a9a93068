import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, harness, newAccount, useAdmin } from './fixture';

describe('admin plan, rule set B (Unlimited as an account flag with an end date, D17)', () => {
  let id: string;
  const h = useAdmin(RULE_SET_B, { onAccount: (a) => (id = a.id) });

  it('sets the Unlimited plan until a date and back to credits', async () => {
    const res = await h.call('put', `/admin/accounts/${id}/plan`, {
      plan: 'unlimited',
      until: '2026-03-01T00:00:00+01:00',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      accountId: id,
      plan: { plan: 'unlimited', until: '2026-02-28T23:00:00.000Z' },
    });
    expect((await h.store.getAccount(id))?.unlimitedUntil).toBe(Date.parse('2026-02-28T23:00:00Z'));
    expect((await h.call('get', `/admin/accounts/${id}`)).body.plan).toEqual({
      plan: 'unlimited',
      until: '2026-02-28T23:00:00.000Z',
    });
    const credits = await h.call('put', `/admin/accounts/${id}/plan`, { plan: 'credits' });
    expect(credits.body.plan).toEqual({ plan: 'credits' });
    expect((await h.store.getAccount(id))?.unlimitedUntil).toBeNull();
  });

  it('shows the plan as credits once its end date has passed', async () => {
    await h.call('put', `/admin/accounts/${id}/plan`, { plan: 'unlimited', until: '2026-02-01T00:00:00Z' });
    h.clock.set(Date.parse('2026-02-01T00:00:00Z'));
    expect((await h.call('get', `/admin/accounts/${id}`)).body.plan).toEqual({ plan: 'credits' });
  });

  it.each([
    ['plan', {}],
    ['plan', { plan: 'gold' }],
    ['until', { plan: 'unlimited' }],
    ['until', { plan: 'unlimited', until: '2026-03-01' }],
    ['until', { plan: 'unlimited', until: '2026-01-31T09:00:00Z' }], // in the past
    ['until', { plan: 'unlimited', until: '2026-01-31T10:00:00Z' }], // now is not the future
    ['until', { plan: 'unlimited', until: 1_800_000_000_000 }],
    ['until', { plan: 'credits', until: '2027-01-01T00:00:00Z' }],
    ['price', { plan: 'credits', price: 10 }],
  ])('refuses a bad %s with 400 naming it, plan unchanged', async (field, body) => {
    expectProblem(await h.call('put', `/admin/accounts/${id}/plan`, body), 400, 'invalid_parameter', field);
    expect((await h.store.getAccount(id))?.unlimitedUntil).toBeNull();
  });

  it('answers 404 for an unknown account', async () => {
    expectProblem(
      await h.call('put', '/admin/accounts/acc_missing/plan', { plan: 'credits' }),
      404,
      'not_found',
    );
  });
});

describe('admin plan, rule set A', () => {
  it('answers 404 not_in_rule_set and points at packages', async () => {
    const h = await harness(RULE_SET_A);
    try {
      const { id } = await newAccount(h);
      const res = await h.call('put', `/admin/accounts/${id}/plan`, { plan: 'credits' });
      expectProblem(res, 404, 'not_in_rule_set');
      expect(res.body.detail).toContain('/packages');
    } finally {
      await h.close();
    }
  });
});

import { hashKey } from '../../../gateway/core/keys';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, harness, newAccount, PEPPER, useAdmin } from './fixture';

describe('admin Unlimited packages, rule set A (D17)', () => {
  let id: string;
  const h = useAdmin(RULE_SET_A, { onAccount: (a) => (id = a.id) });

  it('buys a package: debits exactly 500000 units and creates an Unlimited key valid one calendar month', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '60.0000' });
    const res = await h.call('post', `/admin/accounts/${id}/packages`);
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^gk_/),
      kind: 'unlimited',
      status: 'active',
      // bought 2026-01-31T10:00Z: one calendar month, clamped to February's last day (D17)
      packageUntil: '2026-02-28T10:00:00.000Z',
      label: 'Unlimited until 2026-02-28',
      price: '50.0000',
      balance: '10.0000',
    });
    const account = await h.store.getAccount(id);
    expect(account?.balance).toBe(600_000 - 500_000);
    const ledger = await h.store.ledger(id, 10);
    expect(ledger[0]).toMatchObject({ kind: 'package', amount: -500_000 });
    const found = await h.store.findKeyByHash(hashKey(res.body.key, PEPPER));
    expect(found?.key).toMatchObject({
      id: res.body.id,
      kind: 'unlimited',
      packageUntil: Date.parse('2026-02-28T10:00:00Z'),
    });
    const slots = await h.call('get', `/admin/keys/${res.body.id}`);
    expect(slots.body.slotCapacity).toBe(3);
  });

  it('shows the package on the account plan and turns the key pay-per-use after expiry', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '50' });
    const bought = await h.call('post', `/admin/accounts/${id}/packages`, { label: 'office' });
    expect(bought.body.label).toBe('office');
    const before = await h.call('get', `/admin/accounts/${id}`);
    expect(before.body.plan).toEqual({
      plan: 'payg',
      packages: [
        {
          keyId: bought.body.id,
          prefix: bought.body.prefix,
          until: '2026-02-28T10:00:00.000Z',
          active: true,
        },
      ],
    });
    h.clock.set(Date.parse('2026-02-28T10:00:00.000Z'));
    const after = await h.call('get', `/admin/accounts/${id}`);
    expect(after.body.plan.packages[0].active).toBe(false);
    expect(after.body.keys[0]).toMatchObject({
      id: bought.body.id,
      kind: 'payg',
      packageUntil: '2026-02-28T10:00:00.000Z',
    });
    expect((await h.call('get', `/admin/keys/${bought.body.id}`)).body.slotCapacity).toBe(2);
  });

  it('refuses with 402 insufficient_balance when the balance is short, and changes nothing', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '49.9999' });
    const res = await h.call('post', `/admin/accounts/${id}/packages`);
    expectProblem(res, 402, 'insufficient_balance');
    expect(res.body.detail).toContain('50.0000');
    expect(res.body.detail).toContain('49.9999');
    expect((await h.store.getAccount(id))?.balance).toBe(499_999);
    expect(await h.store.listKeys(id)).toEqual([]);
    expect(await h.store.ledger(id, 10)).toHaveLength(1);
  });

  it('buys a package with exactly the price, leaving zero', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '50' });
    const res = await h.call('post', `/admin/accounts/${id}/packages`);
    expect(res.status).toBe(201);
    expect(res.body.balance).toBe('0.0000');
  });

  it('sells exactly one package when five purchases race for a balance that covers one (D10, D16)', async () => {
    await h.call('post', `/admin/accounts/${id}/credit`, { amount: '50' });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => h.call('post', `/admin/accounts/${id}/packages`)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402, 402, 402]);
    expect((await h.store.getAccount(id))?.balance).toBe(0);
    expect((await h.store.listKeys(id)).filter((k) => k.kind === 'unlimited')).toHaveLength(1);
  });

  it('refuses an unknown field naming it', async () => {
    expectProblem(
      await h.call('post', `/admin/accounts/${id}/packages`, { months: 2 }),
      400,
      'invalid_parameter',
      'months',
    );
  });
});

describe('admin Unlimited packages, rule set B', () => {
  it('answers 404 not_in_rule_set and points at the account plan', async () => {
    const h = await harness(RULE_SET_B);
    try {
      const { id } = await newAccount(h);
      const res = await h.call('post', `/admin/accounts/${id}/packages`);
      expectProblem(res, 404, 'not_in_rule_set');
      expect(res.body.detail).toContain('/plan');
    } finally {
      await h.close();
    }
  });
});

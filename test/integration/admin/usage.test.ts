import { DAY_MS, utcDay } from '../../../gateway/core/clock';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { admitRequest, expectProblem, harness, newAccount, useAdmin } from './fixture';

describe.each([RULE_SET_A, RULE_SET_B])('admin usage, rule set $name', (rules) => {
  let id: string;
  const h = useAdmin(rules, { onAccount: (a) => (id = a.id) });

  it('answers one row per UTC day, for the account and each key, with free, billed and refused', async () => {
    const k1 = (await h.call('post', `/admin/accounts/${id}/keys`, { label: 'a' })).body.id as string;
    const k2 = (await h.call('post', `/admin/accounts/${id}/keys`, { label: 'b' })).body.id as string;
    await admitRequest(h, id, k1, '203.0.113.1');
    await admitRequest(h, id, k1, '203.0.113.1');
    await admitRequest(h, id, k2, '203.0.113.2');
    await h.store.recordRefusal([`account:${id}`, `key:${k2}`], utcDay(h.clock.now()));
    h.clock.advance(DAY_MS);
    await admitRequest(h, id, k2, '203.0.113.2');

    const res = await h.call('get', `/admin/accounts/${id}/usage?from=2026-01-30&to=2026-02-01`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      accountId: id,
      from: '2026-01-30',
      to: '2026-02-01',
      days: [
        { day: '2026-01-30', free: 0, billed: 0, refused: 0, keys: {} },
        {
          day: '2026-01-31',
          free: 3,
          billed: 0,
          refused: 1,
          keys: { [k1]: { free: 2, billed: 0, refused: 0 }, [k2]: { free: 1, billed: 0, refused: 1 } },
        },
        {
          day: '2026-02-01',
          free: 1,
          billed: 0,
          refused: 0,
          keys: { [k2]: { free: 1, billed: 0, refused: 0 } },
        },
      ],
    });
  });

  it('defaults to the last 30 days up to today (UTC)', async () => {
    const res = await h.call('get', `/admin/accounts/${id}/usage`);
    expect(res.status).toBe(200);
    expect(res.body.from).toBe('2026-01-02');
    expect(res.body.to).toBe('2026-01-31');
    expect(res.body.days).toHaveLength(30);
  });

  it('accepts 366 days and refuses 367', async () => {
    expect(
      (await h.call('get', `/admin/accounts/${id}/usage?from=2025-01-01&to=2026-01-01`)).body.days,
    ).toHaveLength(366);
    expectProblem(
      await h.call('get', `/admin/accounts/${id}/usage?from=2025-01-01&to=2026-01-02`),
      400,
      'invalid_parameter',
      'from',
    );
  });

  it.each([
    ['from', 'from=2026-02-30'],
    ['to', 'to=yesterday'],
    ['from', 'from=2026-02-02&to=2026-02-01'],
    ['day', 'day=2026-01-01'],
    ['from', 'from=2026-01-01&from=2026-01-02'],
  ])('refuses a bad %s with 400 naming it (%s)', async (field, query) => {
    expectProblem(
      await h.call('get', `/admin/accounts/${id}/usage?${query}`),
      400,
      'invalid_parameter',
      field,
    );
  });
});

describe('admin account addresses, rule set B Unlimited', () => {
  it('lists the addresses the account was used from (spec 5.5) with when each frees', async () => {
    const h = await harness(RULE_SET_B);
    try {
      const { id } = await newAccount(h);
      const now = h.clock.now();
      const result = await h.store.admit({
        id: 'adm_addr_1',
        now,
        day: utcDay(now),
        slots: [
          {
            scope: `account:${id}`,
            member: '2001:db8:7:8::/64',
            capacity: 2,
            mode: 'sliding',
            windowMs: DAY_MS,
            refuse: 'account_ip_limit',
          },
        ],
        free: [{ id: `account:${id}`, limit: 2500 }],
        overflow: { kind: 'free' },
        usage: [`account:${id}`],
        keyId: null,
      });
      expect(result.admitted).toBe(true);
      const res = await h.call('get', `/admin/accounts/${id}`);
      expect(res.body.addresses).toEqual([
        {
          address: '2001:db8:7:8::/64',
          firstSeen: '2026-01-31T10:00:00.000Z',
          lastSeen: '2026-01-31T10:00:00.000Z',
          freesAt: '2026-02-01T10:00:00.000Z',
        },
      ]);
    } finally {
      await h.close();
    }
  });
});

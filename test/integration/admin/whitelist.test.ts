import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, harness, newAccount, useAdmin } from './fixture';

describe('admin whitelist, rule set B (D18)', () => {
  let id: string;
  const h = useAdmin(RULE_SET_B, { onAccount: (a) => (id = a.id) });

  it('adds an IPv4 address as a /32 and the store identifies requests from it', async () => {
    const res = await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '203.0.113.7' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      address: '203.0.113.7/32',
      createdAt: '2026-01-31T10:00:00.000Z',
    });
    expect((await h.store.findWhitelistedAccount('203.0.113.7'))?.id).toBe(id);
    const account = await h.call('get', `/admin/accounts/${id}`);
    expect(account.body.whitelist).toEqual([res.body]);
  });

  it('accepts an IPv6 /64 block (normalised) and refuses a /63', async () => {
    const ok = await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '2001:DB8:1:2::99/64' });
    expect(ok.status).toBe(201);
    expect(ok.body.address).toBe('2001:db8:1:2::/64');
    expect((await h.store.findWhitelistedAccount('2001:db8:1:2:abcd::1'))?.id).toBe(id);
    const wide = await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '2001:db8:2::/63' });
    expectProblem(wide, 400, 'invalid_parameter', 'address');
    expect(await h.store.listWhitelist(id)).toHaveLength(1);
  });

  it('turns an IPv4-mapped IPv6 address into the IPv4 address', async () => {
    const res = await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '::ffff:198.51.100.4' });
    expect(res.body.address).toBe('198.51.100.4/32');
  });

  it.each([
    ['missing', undefined],
    ['not a string', 42],
    ['not an address', 'example.com'],
    ['an IPv4 block', '203.0.113.0/24'],
    ['private', '192.168.1.10'],
    ['loopback', '127.0.0.1'],
    ['link-local IPv6', 'fe80::1'],
    ['multicast', '239.1.1.1'],
    ['unspecified', '::'],
  ])('refuses an address that is %s with 400 naming address', async (_name, address) => {
    expectProblem(
      await h.call('post', `/admin/accounts/${id}/whitelist`, { address }),
      400,
      'invalid_parameter',
      'address',
    );
    expect(await h.store.listWhitelist(id)).toEqual([]);
  });

  it('refuses an entry that overlaps another account’s entry with 409 (D18)', async () => {
    const other = await newAccount(h);
    expect(
      (await h.call('post', `/admin/accounts/${other.id}/whitelist`, { address: '2001:db8:5:6::/64' }))
        .status,
    ).toBe(201);
    const res = await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '2001:db8:5:6::1' });
    expectProblem(res, 409, 'whitelist_overlap', 'address');
    expect(await h.store.listWhitelist(id)).toEqual([]);
  });

  it('removes an entry with 204; an unknown or foreign entry is 404', async () => {
    const added = await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '203.0.113.8' });
    const other = await newAccount(h);
    const foreign = await h.call('post', `/admin/accounts/${other.id}/whitelist`, { address: '203.0.113.9' });
    expectProblem(
      await h.call('delete', `/admin/accounts/${id}/whitelist/${foreign.body.id}`),
      404,
      'not_found',
    );
    const res = await h.call('delete', `/admin/accounts/${id}/whitelist/${added.body.id}`);
    expect(res.status).toBe(204);
    expect(await h.store.findWhitelistedAccount('203.0.113.8')).toBeNull();
    expectProblem(
      await h.call('delete', `/admin/accounts/${id}/whitelist/${added.body.id}`),
      404,
      'not_found',
    );
    expect((await h.store.findWhitelistedAccount('203.0.113.9'))?.id).toBe(other.id);
  });

  it('answers 404 for an unknown account', async () => {
    expectProblem(
      await h.call('post', '/admin/accounts/acc_missing/whitelist', { address: '203.0.113.7' }),
      404,
      'not_found',
    );
  });
});

describe('admin whitelist, rule set A', () => {
  it('answers 404 not_in_rule_set', async () => {
    const h = await harness(RULE_SET_A);
    try {
      const { id } = await newAccount(h);
      expectProblem(
        await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '203.0.113.7' }),
        404,
        'not_in_rule_set',
      );
      expectProblem(await h.call('delete', `/admin/accounts/${id}/whitelist/wl_x`), 404, 'not_in_rule_set');
    } finally {
      await h.close();
    }
  });
});

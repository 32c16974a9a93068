/** Issue 14: GET /admin/accounts/list and GET /admin/keys: filters, sorting, cursors, refusals naming the field. */
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, harness, type Harness } from './harness';

/** Follow nextCursor from `path` until the last page; the ids in order. */
async function walk(h: Harness, path: string): Promise<string[]> {
  const ids: string[] = [];
  let url = path;
  for (;;) {
    const res = await h.call('get', url);
    expect(res.status).toBe(200);
    ids.push(...(res.body.items as { id: string }[]).map((i) => i.id));
    if (res.body.nextCursor === null) return ids;
    url = `${path}&cursor=${encodeURIComponent(res.body.nextCursor as string)}`;
  }
}

describe('admin listings, rule set B', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness(RULE_SET_B);
  });
  afterEach(async () => h.close());

  const create = async (email: string): Promise<string> => {
    const res = await h.call('post', '/admin/accounts', { email });
    expect(res.status).toBe(201);
    h.clock.advance(1000);
    return res.body.id as string;
  };

  it('lists accounts newest first by pages with a cursor; GET /admin/accounts?email= still answers one account and bare GET /admin/accounts stays a 400', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await create(`u${i}@example.com`));
    const first = await h.call('get', '/admin/accounts/list?order=desc&limit=3');
    expect(first.body.items.map((a: { id: string }) => a.id)).toEqual(ids.slice(4).reverse());
    expect(first.body.items[0]).toEqual({
      id: ids[6],
      email: 'u6@example.com',
      name: null,
      status: 'active',
      balance: 0,
      createdAt: '2026-01-31T10:00:06.000Z',
      emailVerifiedAt: '2026-01-31T10:00:06.000Z',
      deletedAt: null,
    });
    expect(typeof first.body.nextCursor).toBe('string');
    expect(await walk(h, '/admin/accounts/list?order=desc&limit=3')).toEqual([...ids].reverse());
    const found = await h.call('get', '/admin/accounts?email=u3@example.com');
    expect(found.body.id).toBe(ids[3]);
    expectProblem(await h.call('get', '/admin/accounts'), 400, 'invalid_parameter', 'email');
    expectProblem(
      await h.call('get', '/admin/accounts/list?email=u3@example.com'),
      400,
      'invalid_parameter',
      'email',
    );
    expect((await h.call('post', '/admin/accounts/list')).status).toBe(405);
  });

  it('filters by e-mail prefix, status, plan and created range; sorts by e-mail', async () => {
    const b = await create('b@example.com');
    const a = await create('A@example.com');
    const c = await create('carol@other.org');
    await h.call('post', `/admin/accounts/${c}/suspend`);
    await h.call('put', `/admin/accounts/${b}/plan`, { plan: 'unlimited', until: '2026-06-01T00:00:00Z' });
    const ids = async (qs: string) =>
      ((await h.call('get', `/admin/accounts/list?${qs}`)).body.items as { id: string }[]).map((x) => x.id);
    expect(await ids('sort=email')).toEqual([a, b, c]);
    expect(await ids('emailPrefix=a')).toEqual([a]);
    expect(await ids('status=suspended')).toEqual([c]);
    expect(await ids('plan=unlimited')).toEqual([b]);
    expect(await ids('plan=credits')).toEqual([a, c]);
    expect(await ids('createdFrom=2026-01-31T10:00:01Z&createdTo=2026-01-31T10:00:01.500Z')).toEqual([a]);
    expect(await ids('createdFrom=2026-02-01')).toEqual([]);
    expect(await ids('createdTo=2026-01-31')).toEqual([b, a, c]);
  });

  it.each([
    ['status', 'status=gone'],
    ['plan', 'plan=payg'],
    ['sort', 'sort=name'],
    ['order', 'order=up'],
    ['limit', 'limit=0'],
    ['limit', 'limit=1001'],
    ['createdFrom', 'createdFrom=yesterday'],
    ['createdFrom', 'createdFrom=2026-02-02&createdTo=2026-02-01'],
    ['cursor', 'cursor=not-a-cursor'],
    ['colour', 'colour=blue'],
  ])('refuses a bad %s with 400 naming it', async (field, qs) => {
    expectProblem(await h.call('get', `/admin/accounts/list?${qs}`), 400, 'invalid_parameter', field);
  });

  it('refuses a cursor from another sort order', async () => {
    for (let i = 0; i < 3; i++) await create(`x${i}@example.com`);
    const page = await h.call('get', '/admin/accounts/list?limit=1');
    const cursor = encodeURIComponent(page.body.nextCursor as string);
    expectProblem(
      await h.call('get', `/admin/accounts/list?sort=email&cursor=${cursor}`),
      400,
      'invalid_parameter',
      'cursor',
    );
  });
});

describe('admin listings, rule set A', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness(RULE_SET_A);
  });
  afterEach(async () => h.close());

  it('lists keys of an account by pages, filtered by status and kind; never a key or hash', async () => {
    const acc = await h.call('post', '/admin/accounts', {
      email: 'k@example.com',
      name: 'K',
      password: 'correct horse battery',
    });
    const accountId = acc.body.id as string;
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const k = await h.call('post', `/admin/accounts/${accountId}/keys`, { label: `k${i}` });
      expect(k.status).toBe(201);
      made.push(k.body.id as string);
      h.clock.advance(1000);
    }
    await h.call('post', `/admin/keys/${made[1]}/revoke`);
    expect(await walk(h, `/admin/keys?account=${accountId}&limit=3`)).toEqual(made);
    const revoked = await h.call('get', `/admin/keys?account=${accountId}&status=revoked`);
    expect(revoked.body.items.map((k: { id: string }) => k.id)).toEqual([made[1]]);
    expect(revoked.body.items[0]).toEqual(
      expect.objectContaining({ accountId, label: 'k1', kind: 'payg', status: 'revoked' }),
    );
    expect(revoked.text).not.toMatch(/hash/i);
    expect((await h.call('get', `/admin/keys?account=${accountId}&kind=unlimited`)).body.items).toEqual([]);
    expect((await h.call('get', '/admin/keys?account=acc_none')).body).toEqual({
      items: [],
      nextCursor: null,
    });
    expectProblem(await h.call('get', '/admin/keys?kind=gold'), 400, 'invalid_parameter', 'kind');
    expectProblem(await h.call('get', '/admin/accounts/list?plan=credits'), 400, 'invalid_parameter', 'plan');
    expect((await h.call('post', '/admin/keys')).status).toBe(405);
  });
});

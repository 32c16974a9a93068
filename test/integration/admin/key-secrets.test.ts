/** Admin API: test keys (D40), rotation with an overlap and end dates (D39). */
import { hashKey, looksLikeGeogateKey } from '../../../gateway/core/keys';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { expectProblem, PEPPER, START, useAdmin } from './fixture';

describe.each([RULE_SET_A, RULE_SET_B])('admin key secrets, rule set $name', (rules) => {
  let accountId: string;
  const h = useAdmin(rules, { onAccount: (a) => (accountId = a.id) });
  const create = (body: Record<string, unknown>) => h.call('post', `/admin/accounts/${accountId}/keys`, body);

  it('creates a test key, marked test in its answer, its prefix and every listing; a live key is marked live', async () => {
    const res = await create({ label: 'ci', test: true });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^gk_test_[0-9A-Za-z]{49}$/);
    expect(res.body.googleKey).toMatch(/^AIzatest_/);
    expect(looksLikeGeogateKey(res.body.key)).toBe(true);
    expect(res.body).toMatchObject({ mode: 'test', prefix: res.body.key.slice(0, 13) });
    expect((await h.store.findKeyByHash(hashKey(res.body.key, PEPPER)))?.key.test).toBe(true);
    const live = await create({ label: 'prod' });
    expect(live.body.mode).toBe('live');
    const list = await h.call('get', `/admin/keys?account=${accountId}`);
    const modes = Object.fromEntries(
      list.body.items.map((k: { id: string; mode: string }) => [k.id, k.mode]),
    );
    expect(modes).toEqual({ [res.body.id]: 'test', [live.body.id]: 'live' });
    const account = await h.call('get', `/admin/accounts/${accountId}`);
    expect(account.body.keys.find((k: { id: string }) => k.id === res.body.id)).toMatchObject({
      mode: 'test',
    });
    expectProblem(await create({ test: 'yes' }), 400, 'invalid_parameter', 'test');
  });

  it('rotates with an overlap: a new secret shown once, the same id and label; the old one works until then', async () => {
    const made = await create({ label: 'prod' });
    const res = await h.call('post', `/admin/keys/${made.body.id}/rotate`, { overlapSeconds: 3600 });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({
      id: made.body.id,
      label: 'prod',
      mode: 'live',
      rotatedAt: new Date(START).toISOString(),
      previousSecretUntil: new Date(START + 3_600_000).toISOString(),
    });
    expect(res.body.key).not.toBe(made.body.key);
    expect(res.body.prefix).toBe(res.body.key.slice(0, 8));
    expect(res.body.googleKey).toBe(`AIza${res.body.key.slice(3)}`);
    const old = await h.store.findKeyByHash(hashKey(made.body.key, PEPPER));
    expect(old).toMatchObject({ key: { id: made.body.id }, secretUntil: START + 3_600_000 });
    expect((await h.store.findKeyByHash(hashKey(res.body.key, PEPPER)))?.key.id).toBe(made.body.id);
    expect((await h.call('get', `/admin/keys/${made.body.id}`)).text).not.toContain(res.body.key);
    expect(h.logs.text).not.toContain(res.body.key);
    expect(h.logs.text).toContain('key.rotated');
  });

  it('a test key rotates into a test key; no body means no overlap', async () => {
    const made = await create({ test: true });
    const res = await h.call('post', `/admin/keys/${made.body.id}/rotate`);
    expect(res.status).toBe(200);
    expect(res.body.key).toMatch(/^gk_test_/);
    expect(res.body.previousSecretUntil).toBeNull();
    expect(await h.store.findKeyByHash(hashKey(made.body.key, PEPPER))).toBeNull();
  });

  it('refuses an overlap outside 0..7 days naming it, and a revoked key with 409', async () => {
    const made = await create({});
    for (const overlapSeconds of [-1, 604801, 1.5, '60']) {
      expectProblem(
        await h.call('post', `/admin/keys/${made.body.id}/rotate`, { overlapSeconds }),
        400,
        'invalid_parameter',
        'overlapSeconds',
      );
    }
    expect(
      (await h.call('post', `/admin/keys/${made.body.id}/rotate`, { overlapSeconds: 604800 })).status,
    ).toBe(200);
    await h.call('post', `/admin/keys/${made.body.id}/revoke`);
    expect((await h.call('post', `/admin/keys/${made.body.id}/rotate`, {})).status).toBe(409);
    expect((await h.call('post', '/admin/keys/key_nope/rotate', {})).status).toBe(404);
  });

  it('sets, shows and clears an end date; refuses one in the past or malformed', async () => {
    const made = await create({ expiresAt: '2026-03-01T00:00:00Z' });
    expect(made.body.expiresAt).toBe('2026-03-01T00:00:00.000Z');
    const set = await h.call('put', `/admin/keys/${made.body.id}/expiry`, {
      expiresAt: '2026-02-15T12:00:00Z',
    });
    expect(set.status).toBe(200);
    expect(set.body.expiresAt).toBe('2026-02-15T12:00:00.000Z');
    const cleared = await h.call('put', `/admin/keys/${made.body.id}/expiry`, { expiresAt: null });
    expect(cleared.body.expiresAt).toBeNull();
    for (const expiresAt of ['2020-01-01T00:00:00Z', 'tomorrow', 5]) {
      expectProblem(
        await h.call('put', `/admin/keys/${made.body.id}/expiry`, { expiresAt }),
        400,
        'invalid_parameter',
        'expiresAt',
      );
    }
    expectProblem(
      await h.call('put', `/admin/keys/${made.body.id}/expiry`, {}),
      400,
      'invalid_parameter',
      'expiresAt',
    );
    expectProblem(await create({ expiresAt: '2020-01-01T00:00:00Z' }), 400, 'invalid_parameter', 'expiresAt');
  });
});

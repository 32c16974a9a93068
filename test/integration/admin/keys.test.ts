import { DAY_MS } from '../../../gateway/core/clock';
import { hashKey, isKeySyntax } from '../../../gateway/core/keys';
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { admitRequest, expectProblem, harness, newAccount, PEPPER, useAdmin } from './fixture';

describe.each([RULE_SET_A, RULE_SET_B])('admin keys, rule set $name', (rules) => {
  let accountId: string;
  const h = useAdmin(rules, { onAccount: (a) => (accountId = a.id) });

  it('creates a key: 201 shows the key once; the store holds only its HMAC and prefix (D14)', async () => {
    const res = await h.call('post', `/admin/accounts/${accountId}/keys`, { label: 'prod server' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      id: expect.stringMatching(/^key_/),
      accountId,
      key: expect.any(String),
      googleKey: `AIza${res.body.key.slice(3)}`,
      prefix: res.body.key.slice(0, 8),
      label: 'prod server',
      kind: 'payg',
      status: 'active',
      packageUntil: null,
      createdAt: '2026-01-31T10:00:00.000Z',
      revokedAt: null,
      mode: 'live',
      rotatedAt: null,
      previousSecretUntil: null,
      expiresAt: null,
    });
    expect(isKeySyntax(res.body.key)).toBe(true);
    const found = await h.store.findKeyByHash(hashKey(res.body.key, PEPPER));
    expect(found?.key.id).toBe(res.body.id);
    expect(found?.account.id).toBe(accountId);
    // D28: the Google-shaped presentation is the same key (one hash).
    expect(hashKey(res.body.googleKey, PEPPER)).toBe(hashKey(res.body.key, PEPPER));
  });

  it('lists keys on the account without their values', async () => {
    const created = await h.call('post', `/admin/accounts/${accountId}/keys`, { label: 'one' });
    const account = await h.call('get', `/admin/accounts/${accountId}`);
    expect(account.body.keys).toEqual([
      expect.objectContaining({
        id: created.body.id,
        prefix: created.body.prefix,
        label: 'one',
        kind: 'payg',
        status: 'active',
      }),
    ]);
    expect(account.text).not.toContain(created.body.key);
  });

  it('refuses bad labels and unknown fields naming them', async () => {
    expectProblem(
      await h.call('post', `/admin/accounts/${accountId}/keys`, { label: '' }),
      400,
      'invalid_parameter',
      'label',
    );
    expectProblem(
      await h.call('post', `/admin/accounts/${accountId}/keys`, { label: 5 }),
      400,
      'invalid_parameter',
      'label',
    );
    expectProblem(
      await h.call('post', `/admin/accounts/${accountId}/keys`, { kind: 'unlimited' }),
      400,
      'invalid_parameter',
      'kind',
    );
    expect(await h.store.listKeys(accountId)).toEqual([]);
  });

  it('shows a key with its IP slots: address, first seen, last seen, when it frees', async () => {
    const created = await h.call('post', `/admin/accounts/${accountId}/keys`, { label: 'k' });
    await admitRequest(h, accountId, created.body.id, '203.0.113.7');
    h.clock.advance(60_000);
    await admitRequest(h, accountId, created.body.id, '203.0.113.7');
    const res = await h.call('get', `/admin/keys/${created.body.id}`);
    expect(res.status).toBe(200);
    const firstSeen = '2026-01-31T10:00:00.000Z';
    const lastSeen = '2026-01-31T10:01:00.000Z';
    // A: the slot frees 24 h after the first request; B: 24 h after the address was last seen (D13).
    const freesAt = new Date(
      Date.parse(rules.slotMode === 'fixed' ? firstSeen : lastSeen) + DAY_MS,
    ).toISOString();
    expect(res.body).toMatchObject({ id: created.body.id, status: 'active', kind: 'payg', slotCapacity: 2 });
    expect(res.body.slots).toEqual([{ address: '203.0.113.7', firstSeen, lastSeen, freesAt }]);
    expect(res.text).not.toContain(created.body.key);
    h.clock.advance(2 * DAY_MS);
    expect((await h.call('get', `/admin/keys/${created.body.id}`)).body.slots).toEqual([]);
  });

  it('revokes a key: 200 revoked, the store sees it revoked; a second revoke is 409', async () => {
    const created = await h.call('post', `/admin/accounts/${accountId}/keys`, { label: 'k' });
    h.clock.advance(5000);
    const res = await h.call('post', `/admin/keys/${created.body.id}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.body.id,
      status: 'revoked',
      revokedAt: '2026-01-31T10:00:05.000Z',
    });
    expect((await h.store.findKeyByHash(hashKey(created.body.key, PEPPER)))?.key.status).toBe('revoked');
    expectProblem(await h.call('post', `/admin/keys/${created.body.id}/revoke`), 409, 'already_revoked');
  });

  it('renames a key (issue 15 item 4): 200 with the new label, audited; null only where labels are optional', async () => {
    const created = await h.call('post', `/admin/accounts/${accountId}/keys`, { label: 'old' });
    const res = await h.call('patch', `/admin/keys/${created.body.id}`, { label: '  new name ' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, label: 'new name', status: 'active' });
    expect((await h.store.getKey(created.body.id))?.label).toBe('new name');
    const cleared = await h.call('patch', `/admin/keys/${created.body.id}`, { label: null });
    if (rules.keyLabelRequired) expectProblem(cleared, 400, 'invalid_parameter');
    else expect(cleared.body.label).toBeNull();
    expectProblem(await h.call('patch', `/admin/keys/${created.body.id}`, {}), 400, 'invalid_parameter');
    expectProblem(
      await h.call('patch', `/admin/keys/${created.body.id}`, { label: 'x'.repeat(101) }),
      400,
      'invalid_parameter',
    );
    expectProblem(await h.call('patch', '/admin/keys/key_missing', { label: 'x' }), 404, 'not_found');
  });

  it('answers 404 for unknown keys', async () => {
    expectProblem(await h.call('get', '/admin/keys/key_missing'), 404, 'not_found');
    expectProblem(await h.call('post', '/admin/keys/key_missing/revoke'), 404, 'not_found');
  });
});

describe('admin keys: labels', () => {
  it('rule set A sets a label on each key: "Key N" when none is given', async () => {
    const h = await harness(RULE_SET_A);
    try {
      const { id } = await newAccount(h);
      expect((await h.call('post', `/admin/accounts/${id}/keys`)).body.label).toBe('Key 1');
      expect((await h.call('post', `/admin/accounts/${id}/keys`, {})).body.label).toBe('Key 2');
    } finally {
      await h.close();
    }
  });

  it('rule set B leaves the label empty when none is given', async () => {
    const h = await harness(RULE_SET_B);
    try {
      const { id } = await newAccount(h);
      expect((await h.call('post', `/admin/accounts/${id}/keys`)).body.label).toBeNull();
    } finally {
      await h.close();
    }
  });
});

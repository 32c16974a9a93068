/** Issue 14 item 2: one audit line per admin account action, with the operator, object, address and request id. */
import { RULE_SET_A, RULE_SET_B } from '../../../gateway/policy/ruleset';
import { useAdmin, type Harness } from './fixture';

type Line = Record<string, unknown>;

/** The audit lines written so far. */
function auditLines(h: Harness): Line[] {
  return h.logs.text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l['audit'] === true);
}

/** The one audit line of `action`; its request id is the answer's X-Request-Id. */
function only(h: Harness, action: string, requestId: string | undefined): Line {
  const lines = auditLines(h).filter((l) => l['action'] === action);
  expect(lines).toHaveLength(1);
  const line = lines[0] as Line;
  expect(line).toMatchObject({ msg: 'audit', actor: 'operator', actorAccount: null, requestId });
  expect(typeof line['address']).toBe('string');
  expect(line['address']).not.toBe('');
  return line;
}

const PASSWORD = 'correct horse battery';

describe('admin audit log, rule set A', () => {
  const h = useAdmin(RULE_SET_A);

  it('account created, key created and revoked, top-up, package bought: one line each, no secret', async () => {
    const made = await h.call('post', '/admin/accounts', {
      email: 'audit-a@example.com',
      name: 'Ada',
      password: PASSWORD,
    });
    expect(made.status).toBe(201);
    expect(made.headers['x-request-id']).toMatch(/\S/);
    const id = made.body.id as string;
    only(h, 'account.created', made.headers['x-request-id']);
    const key = await h.call('post', `/admin/accounts/${id}/keys`, { label: 'k' });
    expect(only(h, 'key.created', key.headers['x-request-id'])).toMatchObject({
      account: id,
      object: key.body.id,
    });
    const revoked = await h.call('post', `/admin/keys/${key.body.id}/revoke`, {});
    expect(only(h, 'key.revoked', revoked.headers['x-request-id'])).toMatchObject({ object: key.body.id });
    const credit = await h.call('post', `/admin/accounts/${id}/credit`, { amount: '60.00' });
    expect(credit.status).toBe(201);
    expect(only(h, 'account.topped_up', credit.headers['x-request-id'])).toMatchObject({ account: id });
    const pkg = await h.call('post', `/admin/accounts/${id}/packages`, {});
    expect(pkg.status).toBe(201);
    expect(only(h, 'package.bought', pkg.headers['x-request-id'])).toMatchObject({ object: pkg.body.id });
    const text = auditLines(h)
      .map((l) => JSON.stringify(l))
      .join('\n');
    for (const secret of [
      key.body.key,
      key.body.googleKey,
      pkg.body.key,
      PASSWORD,
      'admin-token-for-tests',
    ]) {
      expect(text).not.toContain(String(secret));
    }
    const suspended = await h.call('post', `/admin/accounts/${id}/suspend`, {});
    expect(only(h, 'account.suspended', suspended.headers['x-request-id'])).toMatchObject({ account: id });
    const reinstated = await h.call('post', `/admin/accounts/${id}/reinstate`, {});
    expect(only(h, 'account.reinstated', reinstated.headers['x-request-id'])).toMatchObject({ account: id });
    // A refused action writes no audit line; its problem body carries the request id.
    const again = await h.call('post', `/admin/keys/${key.body.id}/revoke`, {});
    expect(again.status).toBe(409);
    expect(again.body.request_id).toBe(again.headers['x-request-id']);
    expect(auditLines(h).filter((l) => l['action'] === 'key.revoked')).toHaveLength(1);
  });
});

describe('admin audit log, rule set B', () => {
  const h = useAdmin(RULE_SET_B);

  it('plan set, whitelist add and remove', async () => {
    const id = (await h.call('post', '/admin/accounts', { email: 'audit-b@example.com' })).body.id as string;
    const plan = await h.call('put', `/admin/accounts/${id}/plan`, {
      plan: 'unlimited',
      until: '2026-03-01T00:00:00Z',
    });
    expect(plan.status).toBe(200);
    only(h, 'plan.set', plan.headers['x-request-id']);
    const added = await h.call('post', `/admin/accounts/${id}/whitelist`, { address: '203.0.113.7' });
    const addLine = only(h, 'whitelist.added', added.headers['x-request-id']);
    expect(addLine).toMatchObject({ object: added.body.id, cidr: '203.0.113.7/32' });
    const removed = await h.call('delete', `/admin/accounts/${id}/whitelist/${added.body.id}`);
    expect(removed.status).toBe(204);
    only(h, 'whitelist.removed', removed.headers['x-request-id']);
  });
});

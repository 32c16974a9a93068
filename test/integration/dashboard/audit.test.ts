/** Issue 14 item 2: the dashboard's account actions write audit lines (customer, object, address, request id). */
import { PASSWORD, signedIn, signedUp, useDashboards, type Harness } from './fixture';

jest.setTimeout(30_000);

type Line = Record<string, unknown>;

const dash = useDashboards();

/** The audit lines written so far. */
function auditLines(h: Harness): Line[] {
  return h.logs.text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l['audit'] === true);
}

/** The audit lines of `action`, each checked to name the customer, an address and a request id. */
function linesOf(h: Harness, action: string, accountId: string): Line[] {
  const lines = auditLines(h).filter((l) => l['action'] === action);
  for (const l of lines) {
    expect(l).toMatchObject({ msg: 'audit', actor: 'customer', actorAccount: accountId, account: accountId });
    expect(l['address']).toMatch(/\S/);
    expect(l['requestId']).toMatch(/\S/);
  }
  return lines;
}

describe('dashboard audit log', () => {
  test('rule set A: sign-up, keys, top-up, package, sign-out and sign-in; the request id is the answer’s', async () => {
    const h = await dash('A');
    const c = await signedUp(h, 'audit-a@example.com');
    const id = (await h.store.findAccountByEmail('audit-a@example.com'))?.id as string;
    expect(linesOf(h, 'account.created', id)).toHaveLength(1);
    expect(linesOf(h, 'session.signed_in', id)).toHaveLength(1);
    const created = await c.api('post', '/api/keys', { label: 'srv' });
    expect(created.status).toBe(201);
    const [keyLine] = linesOf(h, 'key.created', id);
    expect(keyLine).toMatchObject({ object: created.body.id, requestId: created.headers['x-request-id'] });
    const revoked = await c.api('post', `/api/keys/${created.body.id}/revoke`, {});
    expect(revoked.status).toBe(200);
    expect(linesOf(h, 'key.revoked', id)).toHaveLength(1);
    const top = await c.api('post', '/api/credit/top-ups', { amount: '60', idempotencyKey: 'abcdefgh1' });
    expect(top.status).toBe(201);
    expect(linesOf(h, 'account.topped_up', id)).toHaveLength(1);
    const pkg = await c.api('post', '/api/packages', {});
    expect(pkg.status).toBe(201);
    expect(linesOf(h, 'package.bought', id)).toHaveLength(1);
    expect((await c.form('/signout', {})).status).toBe(303);
    expect(linesOf(h, 'session.signed_out', id)).toHaveLength(1);
    await signedIn(h, 'audit-a@example.com');
    expect(linesOf(h, 'session.signed_in', id)).toHaveLength(2);
    const text = JSON.stringify(auditLines(h));
    for (const secret of [created.body.key, created.body.googleKey, pkg.body.key, PASSWORD]) {
      expect(typeof secret).toBe('string');
      expect(text).not.toContain(secret);
    }
    expect(text).not.toContain('gg_session');
  });

  test('rule set B: link sign-up and whitelist add/remove; no link token in the audit lines', async () => {
    const h = await dash('B');
    const c = await signedUp(h, 'audit-b@example.com');
    const id = (await h.store.findAccountByEmail('audit-b@example.com'))?.id as string;
    expect(linesOf(h, 'account.created', id)).toHaveLength(1);
    const added = await c.api('post', '/api/whitelist', { address: '203.0.113.9' });
    expect(added.status).toBe(201);
    expect(linesOf(h, 'whitelist.added', id)[0]).toMatchObject({ object: added.body.id });
    expect((await c.api('delete', `/api/whitelist/${added.body.id}`)).status).toBe(204);
    expect(linesOf(h, 'whitelist.removed', id)).toHaveLength(1);
    const token = new URLSearchParams(h.mail.last('audit-b@example.com').split('?')[1]).get('token') ?? '';
    expect(token).not.toBe('');
    expect(JSON.stringify(auditLines(h))).not.toContain(token);
  });
});

/** Issue 15 item 4 (rename): a key's label changed on its page and through PATCH /api/keys/{id}, audited. */
import { BOTH, signedUp, useDashboards, type Harness } from './fixture';

const dash = useDashboards();

/** The key.renamed audit lines. */
function renamedLines(h: Harness): Record<string, unknown>[] {
  return h.logs.text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['audit'] === true && l['action'] === 'key.renamed');
}

describe.each(BOTH)('rule set %s', (set) => {
  let h: Harness;
  beforeEach(async () => {
    h = await dash(set);
  });

  test('renames a key on its page: saved with a note, shown in the list, audited with the customer and key', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.api('post', '/api/keys', { label: 'old name' });
    const page = await c.get(`/keys/${created.body.id}`);
    expect(page.text).toContain(`action="/keys/${created.body.id}/label"`);
    expect(page.text).toContain('value="old name"');
    const r = await c.form(`/keys/${created.body.id}/label`, { label: '  eu, "primary" ' });
    expect(r.status).toBe(303);
    expect(r.headers['location']).toBe(`/keys/${created.body.id}?renamed=1`);
    expect((await c.get(r.headers['location'] as string)).text).toContain('Label saved.');
    expect((await h.store.getKey(created.body.id))?.label).toBe('eu, "primary"');
    expect((await c.get('/keys')).text).toContain('eu, &quot;primary&quot;');
    const account = await h.store.findAccountByEmail('kim@example.com');
    expect(renamedLines(h)).toEqual([
      expect.objectContaining({
        actor: 'customer',
        account: account?.id,
        object: created.body.id,
        label: 'eu, "primary"',
        requestId: r.headers['x-request-id'],
      }),
    ]);
  });

  test('refuses a bad label next to the field and changes nothing', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.api('post', '/api/keys', { label: 'keep' });
    await c.get(`/keys/${created.body.id}`);
    const long = await c.form(`/keys/${created.body.id}/label`, { label: 'x'.repeat(101) });
    expect(long.status).toBe(400);
    expect(long.text).toContain('id="f-label-error"');
    const empty = await c.form(`/keys/${created.body.id}/label`, { label: ' ' });
    if (set === 'A') {
      expect(empty.status).toBe(400);
      expect(empty.text).toContain('Give the key a label');
      expect((await h.store.getKey(created.body.id))?.label).toBe('keep');
    } else {
      expect(empty.status).toBe(303); // B: labels are optional; empty removes it
      expect((await h.store.getKey(created.body.id))?.label).toBeNull();
    }
    expect(renamedLines(h)).toHaveLength(set === 'A' ? 0 : 1);
  });

  test('PATCH /api/keys/{id} renames, needs the CSRF token, and treats another account’s key as missing', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.api('post', '/api/keys', { label: 'a' });
    const r = await c.api('patch', `/api/keys/${created.body.id}`, { label: 'b' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: created.body.id, label: 'b', status: 'active' });
    const bad = await c.api('patch', `/api/keys/${created.body.id}`, { label: 5 });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('label');
    const nulled = await c.api('patch', `/api/keys/${created.body.id}`, { label: null });
    expect(nulled.status).toBe(set === 'A' ? 400 : 200);
    const noCsrf = await c.api('patch', `/api/keys/${created.body.id}`, { label: 'c' }, { csrf: null });
    expect(noCsrf.status).toBe(403);
    const other = await signedUp(h, 'lee@example.com');
    const foreign = await other.api('patch', `/api/keys/${created.body.id}`, { label: 'mine now' });
    expect(foreign.status).toBe(404);
    expect((await other.form(`/keys/${created.body.id}/label`, { label: 'mine now' })).status).toBe(404);
    expect((await h.store.getKey(created.body.id))?.label).toBe(set === 'A' ? 'b' : null);
  });
});

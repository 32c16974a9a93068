/**
 * Issue 15 item 4 (key restrictions, D29) on the dashboard: the editor's form post, GET/PUT /api/keys/{id}/restrictions
 * and the live tester's POST /api/restrictions/test, which answers with the gateway's own matcher.
 */
import { BOTH, signedUp, useDashboards, type Harness } from './fixture';

const dash = useDashboards();

describe.each(BOTH)('rule set %s', (set) => {
  let h: Harness;
  beforeEach(async () => {
    h = await dash(set);
  });

  test('the key page shows the editor; a form post saves canonical rules and comes back with a note', async () => {
    const c = await signedUp(h, 'ria@example.com');
    const created = await c.api('post', '/api/keys', { label: 'web' });
    const id = created.body.id as string;
    const page = await c.get(`/keys/${id}`);
    expect(page.text).toContain(`action="/keys/${id}/restrictions"`);
    expect(page.text).toContain('data-test-url="/api/restrictions/test"');
    const r = await c.form(`/keys/${id}/restrictions`, {
      referrers: 'HTTPS://Shop.Example.com/\r\n\r\n*.example.org',
      cidrs: '203.0.113.9/24',
    });
    expect(r.status).toBe(303);
    expect(r.headers['location']).toBe(`/keys/${id}?restricted=1#restrictions`);
    const back = await c.get(`/keys/${id}?restricted=1`);
    expect(back.text).toContain('Restrictions saved.');
    expect(back.text).toContain('https://shop.example.com\n*.example.org</textarea>');
    expect((await h.store.getKey(id))?.restrictions).toEqual({
      referrers: ['https://shop.example.com', '*.example.org'],
      cidrs: ['203.0.113.0/24'],
    });
    expect(h.logs.text).toContain('"action":"key.restricted"');
  });

  test('a bad line is refused next to its list, keeping what was typed, and changes nothing', async () => {
    const c = await signedUp(h, 'ria@example.com');
    const id = (await c.api('post', '/api/keys', { label: 'web' })).body.id as string;
    const r = await c.form(`/keys/${id}/restrictions`, {
      referrers: 'ok.example\nftp://bad.example',
      cidrs: '',
    });
    expect(r.status).toBe(400);
    expect(r.text).toContain('id="r-referrers-error"');
    expect(r.text).toContain('The scheme must be http or https');
    expect(r.text).toContain('ok.example\nftp://bad.example</textarea>');
    expect((await h.store.getKey(id))?.restrictions).toBeUndefined();
  });

  test('the API reads and replaces, needs the CSRF token, and treats another account’s key as missing', async () => {
    const c = await signedUp(h, 'ria@example.com');
    const id = (await c.api('post', '/api/keys', { label: 'web' })).body.id as string;
    expect((await c.api('get', `/api/keys/${id}/restrictions`)).body).toMatchObject({
      referrers: [],
      cidrs: [],
    });
    const put = await c.api('put', `/api/keys/${id}/restrictions`, { referrers: ['example.com'], cidrs: [] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ keyId: id, referrers: ['example.com'], cidrs: [] });
    expect((await c.api('get', `/api/keys/${id}`)).body.restrictions).toEqual({
      referrers: ['example.com'],
      cidrs: [],
    });
    const bad = await c.api('put', `/api/keys/${id}/restrictions`, { cidrs: ['1.2.3.4/40'] });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('cidrs[0]');
    const noCsrf = await c.api('put', `/api/keys/${id}/restrictions`, { referrers: [] }, { csrf: null });
    expect(noCsrf.status).toBe(403);
    const other = await signedUp(h, 'sam@example.com');
    expect((await other.api('get', `/api/keys/${id}/restrictions`)).status).toBe(404);
    expect((await other.api('put', `/api/keys/${id}/restrictions`, { referrers: [] })).status).toBe(404);
    expect((await h.store.getKey(id))?.restrictions).toEqual({ referrers: ['example.com'], cidrs: [] });
  });

  test('the tester checks each line and names the rule that matches, by its line in the editor', async () => {
    const c = await signedUp(h, 'ria@example.com');
    const t = await c.api('post', '/api/restrictions/test', {
      referrers: 'bad pattern!\nhttps://*.example.com\nexample.org/app/',
      cidrs: '203.0.113.0/24\n2001:db8::/32',
      page: 'https://example.org/app/map.html',
      address: '2001:db8:1::5',
    });
    expect(t.status).toBe(200);
    expect(t.body.referrers.map((l: { canonical: string | null }) => l.canonical)).toEqual([
      null,
      'https://*.example.com',
      'example.org/app/',
    ]);
    expect(t.body.referrers[0].error).toMatch(/spaces/);
    expect(t.body.page).toMatchObject({ allowed: true, index: 2, rule: 'example.org/app/' });
    expect(t.body.page.reason).toContain('pattern 3');
    expect(t.body.address).toMatchObject({ allowed: true, index: 1, rule: '2001:db8::/32' });
    const miss = await c.api('post', '/api/restrictions/test', {
      referrers: ['https://*.example.com'],
      page: 'https://example.com',
    });
    expect(miss.body.page).toMatchObject({ allowed: false, index: null });
    expect(miss.body.page.reason).toContain('key_restricted');
    expect((await c.api('post', '/api/restrictions/test', {}, { csrf: null })).status).toBe(403);
  });
});

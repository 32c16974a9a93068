/**
 * The dashboard's test keys (D40), rotation with an overlap and end dates (D39): a test key is created from the keys
 * page and marked "Test key" on every page that shows it; rotating from the key page shows the new secret once and
 * keeps the key; the end date is set and removed; refused input is shown by its field; the JSON API does the same.
 */
import { hashKey } from '../../../gateway/core/keys';
import { PEPPER, signedUp, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();

describe.each([['A'], ['B']] as const)('rule set %s', (set) => {
  beforeEach(async () => {
    h = await dash(set);
  });

  test('a test key is created from the form, shown once with what it answers, and marked on every page', async () => {
    const c = await signedUp(h, 'tess@example.com');
    const form = await c.get('/keys');
    expect(form.text).toContain('name="test"');
    const created = await c.form('/keys', { label: 'ci', test: 'on' });
    expect(created.status).toBe(201);
    const secret = /id="new-key" class="key" readonly value="(gk_test_[0-9A-Za-z]{49})"/.exec(
      created.text,
    )?.[1];
    expect(secret).toBeDefined();
    expect(created.text).toContain('This is a test key');
    expect(created.text).toContain('X-Test-Scenario');
    const found = await h.store.findKeyByHash(hashKey(secret as string, PEPPER));
    expect(found?.key.test).toBe(true);
    const id = found?.key.id ?? '';
    const live = await c.form('/keys', { label: 'prod' });
    expect(live.text).not.toContain('badge test');
    const list = await c.get('/keys');
    expect(list.text).toMatch(/>ci<\/a>\s*<span class="badge test"/);
    expect(list.text).not.toMatch(/>prod<\/a>\s*<span class="badge test"/);
    const detail = await c.get(`/keys/${id}`);
    expect(detail.text).toContain('badge test');
    expect(detail.text).not.toContain(secret as string);
    const json = await c.api('get', '/api/keys');
    const modes = (json.body as { keys: { label: string; mode: string }[] }).keys.map((k) => [
      k.label,
      k.mode,
    ]);
    expect(modes.sort()).toEqual([
      ['ci', 'test'],
      ['prod', 'live'],
    ]);
  });

  test('rotates from the key page: the new secret once, the same key, the old one working for the overlap', async () => {
    const c = await signedUp(h, 'rob@example.com');
    const created = await c.form('/keys', { label: 'prod' });
    const old =
      /id="new-key" class="key" readonly value="(gk_[0-9A-Za-z]{49})"/.exec(created.text)?.[1] ?? '';
    const id = (await h.store.findKeyByHash(hashKey(old, PEPPER)))?.key.id ?? '';
    const page = await c.get(`/keys/${id}`);
    expect(page.text).toContain(`action="/keys/${id}/rotate"`);
    const rotated = await c.form(`/keys/${id}/rotate`, { overlap: '86400' });
    expect(rotated.status).toBe(200);
    const fresh =
      /id="new-key" class="key" readonly value="(gk_[0-9A-Za-z]{49})"/.exec(rotated.text)?.[1] ?? '';
    expect(fresh).not.toBe(old);
    expect(rotated.text).toContain('The previous secret keeps working until');
    expect((await h.store.findKeyByHash(hashKey(fresh, PEPPER)))?.key).toMatchObject({ id, label: 'prod' });
    const previous = await h.store.findKeyByHash(hashKey(old, PEPPER));
    expect(previous?.secretUntil).toBe(h.clock.now() + 86_400_000);
    const after = await c.get(`/keys/${id}`);
    expect(after.text).toContain('The previous secret works until');
    expect(after.text).not.toContain(fresh);
    const bad = await c.form(`/keys/${id}/rotate`, { overlap: '999999999' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Choose an overlap from none to 7 days');
    // The JSON API: no overlap, the old secret unknown at once.
    const api = await c.api('post', `/api/keys/${id}/rotate`, { overlapSeconds: 0 });
    expect(api.status).toBe(200);
    const apiKey = (api.body as { key: string }).key;
    expect(await h.store.findKeyByHash(hashKey(fresh, PEPPER))).toBeNull();
    expect((await h.store.findKeyByHash(hashKey(apiKey, PEPPER)))?.key.id).toBe(id);
    await c.form(`/keys/${id}/revoke`, {});
    expect((await c.form(`/keys/${id}/rotate`, { overlap: '0' })).status).toBe(409);
  });

  test('sets and removes an end date from the key page; a past or malformed day is refused by its field', async () => {
    const c = await signedUp(h, 'eve@example.com');
    const created = await c.form('/keys', { label: 'temp' });
    const secret =
      /id="new-key" class="key" readonly value="(gk_[0-9A-Za-z]{49})"/.exec(created.text)?.[1] ?? '';
    const id = (await h.store.findKeyByHash(hashKey(secret, PEPPER)))?.key.id ?? '';
    const day = new Date(h.clock.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const set = await c.form(`/keys/${id}/expiry`, { expires: day });
    expect(set.status).toBe(303);
    expect((await h.store.getKey(id))?.expiresAt).toBe(Date.parse(`${day}T00:00:00Z`) + 86_400_000);
    const page = await c.get(`/keys/${id}`);
    expect(page.text).toContain('This key stops working at');
    expect(page.text).toContain(`value="${day}"`);
    for (const expires of ['2020-01-01', 'soon']) {
      const bad = await c.form(`/keys/${id}/expiry`, { expires });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('id="f-expires-error"');
    }
    await c.form(`/keys/${id}/expiry`, { never: '1' });
    expect((await h.store.getKey(id))?.expiresAt).toBeUndefined();
  });
});

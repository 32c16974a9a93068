/**
 * D28 (issue 16 item 3) on the dashboard: a new key is shown once with its Google-shaped presentation (`AIza` + the
 * same secret), on the page and in the JSON API; both are one key (one hash); neither appears again afterwards.
 */
import { hashKey } from '../../../gateway/core/keys';
import { PEPPER, signedUp, type Harness, useDashboards } from './fixture';

let h: Harness;
const dash = useDashboards();

describe.each([['A'], ['B']] as const)('rule set %s', (set) => {
  beforeEach(async () => {
    h = await dash(set);
  });

  test('the key-created page shows the AIza presentation of the same key once; the key page never again', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.form('/keys', { label: 'maps' });
    expect(created.status).toBe(201);
    const secret = /id="new-key" class="key" readonly value="(gk_[0-9A-Za-z]{49})"/.exec(created.text)?.[1];
    const google = /id="new-key-google"[^>]*value="(AIza[0-9A-Za-z]{49})"/.exec(created.text)?.[1];
    expect(secret).toBeDefined();
    expect(google).toBe(`AIza${(secret as string).slice(3)}`);
    const found = await h.store.findKeyByHash(hashKey(google as string, PEPPER));
    expect(found?.key.id).toBeDefined();
    expect(found?.key.id).toBe((await h.store.findKeyByHash(hashKey(secret as string, PEPPER)))?.key.id);

    const later = [await c.get('/keys'), await c.get(`/keys/${found?.key.id}`)];
    for (const r of later) {
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(google as string);
      expect(r.text).not.toContain(secret as string);
    }
  });

  test('POST /api/keys answers googleKey once with the key; GET /api/keys/{id} has neither', async () => {
    const c = await signedUp(h, 'kim@example.com');
    const created = await c.api('post', '/api/keys', { label: 'maps' });
    expect(created.status).toBe(201);
    const { key, googleKey } = created.body as { key: string; googleKey: string };
    expect(googleKey).toBe(`AIza${key.slice(3)}`);
    expect(hashKey(googleKey, PEPPER)).toBe(hashKey(key, PEPPER));
    const detail = await c.api('get', `/api/keys/${created.body.id}`);
    expect(detail.status).toBe(200);
    expect(JSON.stringify(detail.body)).not.toContain(googleKey);
    expect(detail.body).not.toHaveProperty('googleKey');
  });
});

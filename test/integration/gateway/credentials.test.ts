/** Acceptance 2: keys from every accepted position (spec 5.2, D2, D2a), conflicts (D12), refusals (D9, 5.6). */
import { call, type Harness } from '../../helpers/gateway-harness';
import { useGateway, useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

const REV = '/v1/reverse?lat=40.7580&lon=-73.9855';
const FORM = 'application/x-www-form-urlencoded';
const basic = (k: string) => 'Basic ' + Buffer.from(`${k}:`).toString('base64');

/** Each position as request options. */
const POSITIONS: Record<
  string,
  (k: string) => { path: string; method?: string; headers?: Record<string, string>; body?: string }
> = {
  'x-api-key': (k) => ({ path: REV, headers: { 'x-api-key': k } }),
  bearer: (k) => ({ path: REV, headers: { authorization: `Bearer ${k}` } }),
  basic: (k) => ({ path: REV, headers: { authorization: basic(k) } }),
  'query-key': (k) => ({ path: `${REV}&key=${k}` }),
  'x-goog-api-key': (k) => ({ path: REV, headers: { 'x-goog-api-key': k } }),
  'form-key': (k) => ({
    path: '/v1/reverse',
    method: 'POST',
    headers: { 'content-type': FORM },
    body: `lat=40.758&lon=-73.9855&key=${k}`,
  }),
};

const send = (h: Harness, o: ReturnType<NonNullable<(typeof POSITIONS)[string]>>) =>
  call(h.mainUrl, o.path, o);

describe.each([
  ['A', ['x-api-key', 'bearer', 'basic', 'query-key', 'x-goog-api-key', 'form-key']],
  ['B', ['x-api-key', 'query-key']],
] as const)('rule set %s', (policy, accepted) => {
  const h = useGateway(() => ({ policy, backendUrl: backend.url }));
  let key: string;
  let keyId: string;
  beforeAll(async () => {
    const acc = await h.account({ balance: 100 });
    const k = await h.key(acc.id);
    key = k.key;
    keyId = k.record.id;
  });
  const keyUsage = async () =>
    (await h.store.usage([`key:${keyId}`], '2026-11-22', '2026-11-22'))[0]?.free ?? 0;

  test.each(accepted.map((p) => [p]))('a key works from position %s and is counted to the key', async (p) => {
    const before = await keyUsage();
    const r = await send(h, (POSITIONS[p] as (k: string) => never)(key));
    expect(r.status).toBe(200);
    expect(await keyUsage()).toBe(before + 1);
    expect(r.json.display_name).toEqual(expect.any(String));
    // Counted to the key's identity, not anonymously: an unknown key in the same position is refused.
    const bad = await send(h, (POSITIONS[p] as (k: string) => never)('gk_' + '0'.repeat(43)));
    expect(bad.status).toBe(401);
    expect(bad.json.code).toBe('invalid_key');
  });

  test('different keys in two positions → 400 conflicting_credentials naming both (D12); the same key twice is fine', async () => {
    const other = 'gk_' + 'Z'.repeat(43);
    const r = await call(h.mainUrl, `${REV}&key=${other}`, { headers: { 'x-api-key': key } });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: 'conflicting_credentials',
      parameter: 'header:x-api-key, query:key',
    });
    expect(JSON.stringify(r.json)).not.toContain(key);
    const same = await call(h.mainUrl, `${REV}&key=${key}`, { headers: { 'x-api-key': key } });
    expect(same.status).toBe(200);
  });

  test('a key of the wrong syntax → 401 invalid_key (no store lookup, never anonymous)', async () => {
    const r = await call(h.mainUrl, REV, { headers: { 'x-api-key': 'not-a-key' } });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe('invalid_key');
  });

  test('a revoked key → 401 and never falls back to anonymous (spec 5.6)', async () => {
    const acc = await h.account();
    const k = await h.key(acc.id);
    expect((await call(h.mainUrl, REV, { headers: { 'x-api-key': k.key } })).status).toBe(200);
    await h.store.revokeKey(k.record.id, h.clock.now());
    const r = await call(h.mainUrl, REV, { headers: { 'x-api-key': k.key } });
    expect(r.status).toBe(401);
    expect(r.json.code).toBe(policy === 'A' ? 'key_revoked' : 'invalid_key');
    expect((await call(h.mainUrl, REV)).status).toBe(200); // anonymous access itself is open on this host
  });
});

describe('rule set B widened by credentials.accept (D2)', () => {
  test('Bearer works once configured; the query key is then no credential', async () => {
    const h = await gw.start({
      policy: 'B',
      backendUrl: backend.url,
      config: {
        credentials: { accept: ['x-api-key', 'bearer'] },
        hosts: [{ name: 'localhost', adapter: 'native', anonymous: false }],
      },
    });
    try {
      const acc = await h.account();
      const k = await h.key(acc.id);
      expect((await call(h.mainUrl, REV, { headers: { authorization: `Bearer ${k.key}` } })).status).toBe(
        200,
      );
      // query-key is no longer accepted: a key sent there is refused as invalid_key, naming the accepted
      // positions (issue 13 item 12 / spec 5.6 item 4; was missing_key, as if no credential had been sent).
      const r = await call(h.mainUrl, `${REV}&key=${k.key}`);
      expect(r.status).toBe(401);
      expect(r.json.code).toBe('invalid_key');
      expect(r.json.detail).toContain('X-API-Key');
    } finally {
      await h.close();
    }
  });
});

describe('rule set A host with anonymous: false', () => {
  test('no credential → 401 missing_key; a key still works; another host stays anonymous', async () => {
    const h = await gw.start({
      policy: 'A',
      backendUrl: backend.url,
      config: {
        hosts: [
          { name: 'localhost', adapter: 'native', anonymous: true },
          { name: 'closed', port: 0, adapter: 'native', anonymous: false },
        ],
      },
    });
    try {
      const closed = h.hostUrls['closed'] as string;
      const r = await call(closed, REV);
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ code: 'missing_key', status: 401 });
      const acc = await h.account();
      const k = await h.key(acc.id);
      expect((await call(closed, REV, { headers: { 'x-api-key': k.key } })).status).toBe(200);
      // Matched by Host name on the main listener as well.
      expect((await call(h.mainUrl, REV, { headers: { host: 'closed:1234' } })).status).toBe(401);
      expect((await call(h.mainUrl, REV)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});

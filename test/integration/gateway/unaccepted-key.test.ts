/**
 * Issue 13 item 12 (spec 5.6 item 4): a request carrying a key in a recognisable position the deployment does not
 * accept is refused 401 and never served anonymously or as a whitelisted address; the detail names the accepted
 * positions. Through a running gateway with an injected backend; nothing is counted and the backend is never asked.
 */
import { call } from '../../helpers/gateway-harness';
import { startInjected, type Injected } from './injected-gateway';

const REV = '/v1/reverse?lat=48.8584&lon=2.2945';
const DAY = '2026-11-22';
const FORM = 'application/x-www-form-urlencoded';
const B_POSITIONS = 'the X-API-Key header or the "key" query parameter';
const basic = (k: string) => 'Basic ' + Buffer.from(`${k}:`).toString('base64');

/** A request with the key in one position rule set B does not accept by default, and that position's name. */
const UNACCEPTED: [string, (k: string) => Parameters<typeof call>[2] & { path: string }, string][] = [
  [
    'Authorization: Bearer',
    (k) => ({ path: REV, headers: { authorization: `Bearer ${k}` } }),
    'header:authorization',
  ],
  ['HTTP Basic', (k) => ({ path: REV, headers: { authorization: basic(k) } }), 'header:authorization'],
  ['X-Goog-Api-Key', (k) => ({ path: REV, headers: { 'x-goog-api-key': k } }), 'header:x-goog-api-key'],
  [
    'a form body key',
    (k) => ({
      path: '/v1/reverse',
      method: 'POST',
      headers: { 'content-type': FORM },
      body: `lat=1&lon=2&key=${k}`,
    }),
    'form:key',
  ],
];

describe('rule set B, anonymous host', () => {
  let g: Injected;
  let valid: string;
  let revoked: string;
  beforeAll(async () => {
    g = await startInjected('B');
    const acc = await g.account(10);
    valid = (await g.key(acc.id)).key;
    const r = await g.key(acc.id);
    revoked = r.key;
    await g.store.revokeKey(r.id, g.clock.now());
  });
  afterAll(() => g.close());
  const anonymousUsage = async () => (await g.store.usage(['network:127.0.0.1/32'], DAY, DAY))[0]?.free ?? 0;

  describe.each(UNACCEPTED)('a key in %s', (_name, make, parameter) => {
    test.each([
      ['valid', () => valid],
      ['revoked', () => revoked],
      ['unknown', () => 'gk_' + 'Q'.repeat(43)],
    ])(
      '%s → 401 invalid_key naming the accepted positions; not served anonymously, nothing counted',
      async (_k, key) => {
        const k = key();
        const calls = g.calls.length;
        const before = await anonymousUsage();
        const o = make(k);
        const r = await call(g.mainUrl, o.path, o);
        expect(r.status).toBe(401);
        expect(r.json).toMatchObject({ code: 'invalid_key', parameter });
        expect(r.json.detail).toContain(`send it in ${B_POSITIONS}`);
        expect(r.text).not.toContain(k);
        expect(g.calls.length).toBe(calls);
        expect(await anonymousUsage()).toBe(before);
      },
    );
  });

  test('the same key in an accepted position is served, and a request without any key stays anonymous', async () => {
    expect((await call(g.mainUrl, REV, { headers: { 'x-api-key': valid } })).status).toBe(200);
    expect((await call(g.mainUrl, `${REV}&key=${valid}`)).status).toBe(200);
    const before = await anonymousUsage();
    expect((await call(g.mainUrl, REV, { headers: { authorization: 'Digest abc' } })).status).toBe(200);
    expect(await anonymousUsage()).toBe(before + 1);
  });
});

describe('rule set B, whitelisted address', () => {
  test('a Bearer key from a whitelisted address is refused 401, never counted to the whitelisted account', async () => {
    const g = await startInjected('B');
    try {
      const acc = await g.account(10);
      await g.store.addWhitelist(acc.id, '127.0.0.1/32', g.clock.now());
      const { key } = await g.key(acc.id);
      const usage = async () => (await g.store.usage([`account:${acc.id}`], DAY, DAY))[0]?.free ?? 0;
      expect((await call(g.mainUrl, REV)).status).toBe(200); // the whitelist itself works
      expect(await usage()).toBe(1);
      const r = await call(g.mainUrl, REV, { headers: { authorization: `Bearer ${key}` } });
      expect([r.status, r.json.code]).toEqual([401, 'invalid_key']);
      expect(await usage()).toBe(1);
    } finally {
      await g.close();
    }
  });
});

describe('a host that serves no request without a key', () => {
  test('rule set B: 401 invalid_key too (issue 13 item 12), and the detail names the accepted positions', async () => {
    const g = await startInjected('B', {
      hosts: [{ name: 'localhost', adapter: 'native', anonymous: false }],
    });
    try {
      const acc = await g.account(10);
      const { key } = await g.key(acc.id);
      const r = await call(g.mainUrl, REV, { headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(401);
      expect(r.json.code).toBe('invalid_key');
      expect(r.json.detail).toContain(`send it in ${B_POSITIONS}`);
      expect(g.calls).toEqual([]);
    } finally {
      await g.close();
    }
  });
});

describe('rule set A', () => {
  test('by default every position is accepted: a Bearer key is served and counted to the key', async () => {
    const g = await startInjected('A');
    try {
      const acc = await g.account(10);
      const { key, id } = await g.key(acc.id);
      expect((await call(g.mainUrl, REV, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      expect((await g.store.usage([`key:${id}`], DAY, DAY))[0]?.free).toBe(1);
    } finally {
      await g.close();
    }
  });

  test('narrowed by credentials.accept, it is as strict as B: 401 invalid_key, nothing counted', async () => {
    const g = await startInjected('A', { credentials: { accept: ['x-api-key'] } });
    try {
      const acc = await g.account(10);
      const { key } = await g.key(acc.id);
      const r = await call(g.mainUrl, `${REV}&key=${key}`);
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({ code: 'invalid_key', parameter: 'query:key' });
      expect(r.json.detail).toContain('send it in the X-API-Key header');
      expect(await g.store.usage(['network:127.0.0.1/32'], DAY, DAY)).toEqual([]);
      expect(g.calls).toEqual([]);
    } finally {
      await g.close();
    }
  });
});

/**
 * Security of the dashboard: account isolation on every endpoint, CSRF and session checks, sign-in rate limits,
 * and a key that appears on its creation page only (D14).
 */
import { SignJWT } from 'jose';
import { SIGNIN_LIMITS } from '../../../dashboard/context';
import { Client, PASSWORD, signedUp, type Harness, useDashboards } from './fixture';

jest.setTimeout(30_000);

let h: Harness;
const dash = useDashboards();

describe.each([['A'], ['B']] as const)('rule set %s: one account never reaches another’s data', (set) => {
  let alice: Client;
  let mallory: Client;
  let aliceKey: { id: string; prefix: string; key: string };
  let aliceEntry: { id: string } | null;
  let aliceId: string;

  beforeEach(async () => {
    h = await dash(set);
    alice = await signedUp(h, 'alice@example.com');
    mallory = await signedUp(h, 'mallory@example.com');
    aliceKey = (await alice.api('post', '/api/keys', { label: 'alice-secret-label' })).body;
    aliceEntry =
      set === 'B' ? (await alice.api('post', '/api/whitelist', { address: '203.0.113.9' })).body : null;
    aliceId = (await h.store.findAccountByEmail('alice@example.com'))?.id ?? '';
    await h.store.credit(aliceId, 12_345, 'alice-topup', h.clock.now());
  });

  test('every key, usage and whitelist endpoint answers 404 for a foreign id and changes nothing', async () => {
    const k = aliceKey.id;
    const attempts = [
      () => mallory.get(`/keys/${k}`),
      () => mallory.get(`/keys/${k}/revoke`),
      () => mallory.form(`/keys/${k}/revoke`, {}),
      () => mallory.api('get', `/api/keys/${k}`),
      () => mallory.api('post', `/api/keys/${k}/revoke`),
      () => mallory.get(`/usage?subject=${k}`),
      () => mallory.api('get', `/api/usage?subject=${k}`),
      () => mallory.api('get', `/api/usage?subject=${aliceId}`),
      () => mallory.api('get', `/api/usage?subject=${encodeURIComponent('account:' + aliceId)}`),
      ...(aliceEntry
        ? [
            () => mallory.form(`/whitelist/${aliceEntry?.id}/delete`, {}),
            () => mallory.api('delete', `/api/whitelist/${aliceEntry?.id}`),
          ]
        : []),
    ];
    for (const attempt of attempts) {
      const r = await attempt();
      expect(r.status).toBe(404);
      expect(r.text).not.toContain('alice');
      expect(r.text).not.toContain(aliceKey.prefix);
    }
    expect((await h.store.getKey(k))?.status).toBe('active');
    if (aliceEntry) expect(await h.store.listWhitelist(aliceId)).toHaveLength(1);
  });

  test('lists, credit, ledger and usage show only the signed-in account', async () => {
    const pages = ['/', '/keys', '/credit', '/usage', ...(set === 'B' ? ['/whitelist'] : [])];
    const apis = [
      '/api/keys',
      '/api/credit',
      '/api/usage',
      '/api/session',
      ...(set === 'B' ? ['/api/whitelist'] : []),
    ];
    for (const p of pages) {
      const r = await mallory.get(p);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain('alice');
      expect(r.text).not.toContain(aliceKey.prefix);
    }
    for (const p of apis) {
      const r = await mallory.api('get', p);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain('alice');
      expect(r.text).not.toContain(aliceKey.prefix);
      expect(r.text).not.toContain('203.0.113.9');
    }
    const credit = await mallory.api('get', '/api/credit');
    expect(credit.body.ledger).toEqual([]);
    expect(credit.body.balance).toBe(set === 'A' ? '0.0000' : 0);
  });
});

describe('CSRF and sessions', () => {
  let c: Client;
  beforeEach(async () => {
    h = await dash('A');
    c = await signedUp(h, 'alice@example.com');
  });
  const keys = async () =>
    h.store.listKeys((await h.store.findAccountByEmail('alice@example.com'))?.id ?? '');

  test('a form without the CSRF token, or with another session’s token, is refused with 403 and changes nothing', async () => {
    const other = await signedUp(h, 'other@example.com');
    expect((await c.form('/keys', { label: 'x', _csrf: '' })).status).toBe(403);
    expect((await c.form('/keys', { label: 'x', _csrf: other.csrf })).status).toBe(403);
    expect((await c.form('/keys', { label: 'x', _csrf: 'forged' })).status).toBe(403);
    expect(await keys()).toHaveLength(0);
    expect((await c.form('/keys', { label: 'x' })).status).toBe(201);
  });

  test('an API call without X-CSRF-Token is refused with 403 problem+json', async () => {
    const r = await c.api('post', '/api/keys', { label: 'x' }, { csrf: null });
    expect(r.status).toBe(403);
    expect(r.headers['content-type']).toContain('application/problem+json');
    expect(r.body.code).toBe('csrf_failed');
    expect(await keys()).toHaveLength(0);
  });

  test('a request from a foreign Origin (or Referer) is refused even with a valid token', async () => {
    c.origin = 'http://evil.test';
    expect((await c.form('/keys', { label: 'x' })).status).toBe(403);
    c.origin = null;
    expect((await c.form('/keys', { label: 'x' }, { Referer: 'http://evil.test/page' })).status).toBe(403);
    expect(await keys()).toHaveLength(0);
  });

  test('sign-in and sign-up forms need the pre-session token (login CSRF)', async () => {
    const fresh = new Client(h.app);
    expect((await fresh.form('/signin', { email: 'alice@example.com', password: PASSWORD })).status).toBe(
      403,
    );
    expect(
      (await fresh.form('/signup', { email: 'new@example.com', name: 'N', password: PASSWORD })).status,
    ).toBe(403);
    expect(await h.store.findAccountByEmail('new@example.com')).toBeNull();
  });

  test('without a session: the API answers 401, pages redirect to sign-in', async () => {
    const anon = new Client(h.app);
    for (const p of ['/api/keys', '/api/credit', '/api/usage', '/api/session', '/api/keys/key_x']) {
      const r = await anon.api('get', p);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('unauthorized');
    }
    for (const p of ['/', '/keys', '/credit', '/usage', '/keys/key_x']) {
      const r = await anon.get(p);
      expect(r.status).toBe(303);
      expect(r.headers.location).toBe('/signin');
    }
    await anon.get('/signin'); // a pre-session token is valid CSRF-wise, but is no session
    expect((await anon.api('post', '/api/keys', { label: 'x' })).status).toBe(401);
    expect((await anon.form('/keys', { label: 'x' })).status).toBe(303);
    expect(await keys()).toHaveLength(0);
  });

  test('a tampered or foreign-signed session cookie is no session', async () => {
    const session = c.cookies.get('gg_session') ?? '';
    const tampered = new Client(h.app);
    tampered.cookies.set('gg_session', session.slice(0, -3) + (session.endsWith('AAA') ? 'BBB' : 'AAA'));
    expect((await tampered.api('get', '/api/session')).status).toBe(401);
    const account = await h.store.findAccountByEmail('alice@example.com');
    const forged = await new SignJWT({ sid: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(account?.id ?? '')
      .setAudience('geogate-dashboard-session')
      .setExpirationTime(Math.floor(h.clock.now() / 1000) + 3600)
      .sign(new TextEncoder().encode('another-secret-another-secret-another'));
    const f = new Client(h.app);
    f.cookies.set('gg_session', forged);
    expect((await f.api('get', '/api/session')).status).toBe(401);
  });

  test('sign-in rate limiting holds: the 11th attempt for one e-mail gets 429 even with the right password', async () => {
    const x = new Client(h.app);
    await x.get('/signin');
    for (let i = 0; i < SIGNIN_LIMITS.perEmail; i++)
      await x.form('/signin', { email: 'alice@example.com', password: 'nope nope nope' });
    const r = await x.form('/signin', { email: 'alice@example.com', password: PASSWORD });
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBeDefined();
    expect(r.headers['set-cookie']?.toString() ?? '').not.toContain('gg_session=');
  });
});

describe.each([['A'], ['B']] as const)(
  'rule set %s: the key is shown on its creation page only (D14)',
  (set) => {
    test('no later page, API answer or log line contains it', async () => {
      h = await dash(set);
      const c = await signedUp(h, 'alice@example.com');
      const created = await c.form('/keys', { label: 'prod' });
      const secret = /value="(gk_[0-9A-Za-z]{49})"/.exec(created.text)?.[1] ?? '';
      expect(secret).toHaveLength(52); // gk_ + 43 random + 6 checksum characters (D39)
      const id = (await c.api('get', '/api/keys')).body.keys[0].id as string;
      const seenBefore = c.bodies.length;
      const pages = [
        '/',
        '/keys',
        `/keys/${id}`,
        `/keys/${id}/revoke`,
        '/credit',
        '/usage',
        `/usage?subject=${id}`,
      ];
      if (set === 'B') pages.push('/whitelist');
      for (const p of pages) expect((await c.get(p)).status).toBe(200);
      for (const p of [
        '/api/keys',
        `/api/keys/${id}`,
        '/api/session',
        '/api/credit',
        `/api/usage?subject=${id}`,
      ]) {
        expect((await c.api('get', p)).status).toBe(200);
      }
      await c.form(`/keys/${id}/revoke`, {});
      await c.get(`/keys/${id}`);
      for (const body of c.bodies.slice(seenBefore)) expect(body).not.toContain(secret);
      expect(h.logs.text).not.toContain(secret);
      expect(h.logs.text).not.toContain(secret.slice(8));
    });
  },
);

describe('the per-address sign-in limit and proxies (D3)', () => {
  const attempts = async (c: Client, forwardedFor: string, n: number): Promise<number[]> => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      out.push(
        (
          await c.form(
            '/signin',
            { email: `u${forwardedFor}-${i}@example.com` },
            { 'X-Forwarded-For': forwardedFor },
          )
        ).status,
      );
    }
    return out;
  };

  test('without trusted proxies X-Forwarded-For is ignored: rotating it does not escape the limit', async () => {
    h = await dash('B');
    const c = new Client(h.app);
    await c.get('/signin');
    const statuses = [
      ...(await attempts(c, '198.51.100.1', SIGNIN_LIMITS.perAddress)),
      ...(await attempts(c, '198.51.100.2', 1)),
    ];
    expect(statuses.slice(0, SIGNIN_LIMITS.perAddress).every((s) => s === 200)).toBe(true);
    expect(statuses[SIGNIN_LIMITS.perAddress]).toBe(429);
  });

  test('behind a trusted proxy each forwarded client has its own limit', async () => {
    const { parseCidr } = await import('../../../gateway/net/address');
    h = await dash('B', {
      deps: {
        trustProxy: [
          parseCidr('127.0.0.0/8'),
          parseCidr('::1/128'),
          parseCidr('::ffff:127.0.0.1/128'),
        ].filter((x) => x !== null),
      },
    });
    const c = new Client(h.app);
    await c.get('/signin');
    const first = await attempts(c, '198.51.100.1', SIGNIN_LIMITS.perAddress + 1);
    expect(first[SIGNIN_LIMITS.perAddress]).toBe(429);
    expect(await attempts(c, '198.51.100.2', 1)).toEqual([200]);
  });
});

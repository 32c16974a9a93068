/** Acceptance 9: every error code as problem+json (D20), quota headers (D21), CORS/HEAD/OPTIONS and 404 (D23, D11). */
import { DAY_MS, nextUtcMidnight } from '../../../gateway/core/clock';
import { call, T0, type Answer, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;

const IP = '/v1/ipv4?ip=8.8.8.8';
const RESET_S = (nextUtcMidnight(T0) - T0) / 1000;
let h: Harness;

const start = (policy: 'A' | 'B', extra: Record<string, unknown> = {}) =>
  gw.start({
    policy,
    backendUrl: backend.url,
    config: {
      trustProxy: ['127.0.0.1/32'],
      limits: { freePerDay: 1 },
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { name: 'closed', port: 0, adapter: 'native', anonymous: false },
      ],
      ...extra,
    },
  });
const from = (ip: string, key?: string, path = IP) =>
  call(h.mainUrl, path, { headers: { 'x-forwarded-for': ip, ...(key ? { 'x-api-key': key } : {}) } });

/** Scenarios producing each code; `null` where the code does not exist in that rule set. */
type Scenario = (h: Harness) => Promise<Answer>;
const SCENARIOS: Record<string, { A: Scenario | null; B: Scenario | null }> = {
  missing_key: {
    A: async (x) => call(x.hostUrls['closed'] as string, IP),
    B: async (x) => call(x.hostUrls['closed'] as string, IP),
  },
  invalid_key: {
    A: async () => from('203.0.113.1', 'gk_' + '1'.repeat(43)),
    B: async () => from('203.0.113.1', 'nonsense'),
  },
  key_revoked: {
    A: async (x) => {
      const k = await x.key((await x.account()).id);
      await x.store.revokeKey(k.record.id, x.clock.now());
      return from('203.0.113.1', k.key);
    },
    B: null,
  },
  no_credits: {
    A: async (x) => {
      const { key } = await x.key((await x.account()).id);
      await from('203.0.113.2', key);
      return from('203.0.113.2', key);
    },
    B: null,
  },
  key_ip_limit: {
    A: async (x) => {
      const { key } = await x.key((await x.account({ balance: 9 })).id);
      for (const ip of ['203.0.113.3', '203.0.113.4']) await from(ip, key);
      return from('203.0.113.5', key);
    },
    B: async (x) => {
      const { key } = await x.key((await x.account({ balance: 9 })).id);
      for (const ip of ['203.0.113.3', '203.0.113.4']) await from(ip, key);
      return from('203.0.113.5', key);
    },
  },
  account_ip_limit: {
    A: null,
    B: async (x) => {
      const acc = await x.account({ unlimitedUntil: T0 + DAY_MS });
      const k1 = await x.key(acc.id);
      const k2 = await x.key(acc.id);
      await from('203.0.113.6', k1.key);
      await from('203.0.113.7', k2.key);
      return from('203.0.113.8', k1.key);
    },
  },
  account_suspended: {
    A: async (x) => {
      const acc = await x.account();
      const { key } = await x.key(acc.id);
      await x.store.setAccountStatus(acc.id, 'suspended');
      return from('203.0.113.1', key);
    },
    B: async (x) => {
      const acc = await x.account();
      await x.store.addWhitelist(acc.id, '192.0.2.99/32', x.clock.now());
      await x.store.setAccountStatus(acc.id, 'suspended');
      return from('192.0.2.99');
    },
  },
  quota_exceeded: {
    A: async () => {
      await from('198.51.100.1');
      return from('198.51.100.1');
    },
    B: async (x) => {
      const { key } = await x.key((await x.account()).id);
      await from('198.51.100.2', key);
      return from('198.51.100.2', key); // D7: B keyed, no credits → 429
    },
  },
  conflicting_credentials: {
    A: async () =>
      call(h.mainUrl, `${IP}&key=gk_${'2'.repeat(43)}`, { headers: { 'x-api-key': 'gk_' + '3'.repeat(43) } }),
    B: async () =>
      call(h.mainUrl, `${IP}&key=gk_${'2'.repeat(43)}`, { headers: { 'x-api-key': 'gk_' + '3'.repeat(43) } }),
  },
  invalid_parameter: {
    A: async () => from('203.0.113.1', undefined, '/v1/reverse?lat=91&lon=0'),
    B: async () => from('203.0.113.1', undefined, '/v1/reverse?lat=1e1&lon=0'),
  },
  ipv4_required: {
    A: async () => from('2001:db8::1', undefined, '/v1/ipv4'),
    B: async () => from('2001:db8::1', undefined, '/v1/ipv4'),
  },
  not_found: {
    A: async () => from('203.0.113.1', undefined, '/v2/reverse'),
    B: async () => from('203.0.113.1', undefined, '/'),
  },
  method_not_allowed: {
    A: async () => call(h.mainUrl, IP, { method: 'DELETE' }),
    B: async () => call(h.mainUrl, IP, { method: 'PUT' }),
  },
};

describe.each(['A', 'B'] as const)('rule set %s: error codes as problem+json (D20)', (policy) => {
  const rows = Object.entries(SCENARIOS).filter(([, s]) => s[policy] !== null);
  test.each(rows)('%s', async (code, s) => {
    h = await start(policy);
    const r = await (s[policy] as Scenario)(h);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json).toMatchObject({ code, status: r.status, type: `urn:geogate:problem:${code}` });
    expect(typeof r.json.title).toBe('string');
    expect(typeof r.json.detail).toBe('string');
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('quota headers (D21)', () => {
  test('B: x-quota-* and RateLimit on admitted and refused answers to counted identities', async () => {
    h = await start('B', { limits: { freePerDay: 2 } });
    const ok = await from('203.0.113.50');
    expect(ok.headers).toMatchObject({
      'x-quota-limit': '2',
      'x-quota-used': '1',
      'x-quota-reset': String(nextUtcMidnight(T0) / 1000),
      'ratelimit-policy': '"daily";q=2;w=86400',
      ratelimit: `"daily";r=1;t=${RESET_S}`,
    });
    await from('203.0.113.50');
    const refused = await from('203.0.113.50');
    expect(refused.status).toBe(429);
    expect(refused.headers).toMatchObject({ 'x-quota-used': '2', ratelimit: `"daily";r=0;t=${RESET_S}` });
    // Both rule sets: a 429 says when the allowance resets, in seconds (B keeps its X-Quota-* too).
    expect(refused.headers['retry-after']).toBe(String(RESET_S));
    // A key slot refusal of a counted identity carries them too.
    const { key } = await h.key((await h.account({ balance: 5 })).id);
    await from('203.0.113.51', key);
    await from('203.0.113.52', key);
    const slot = await from('203.0.113.53', key);
    expect(slot.status).toBe(403);
    expect(slot.headers['x-quota-used']).toBe('2');
  });

  test('A: Retry-After on 429 only, RateLimit fields on admitted answers', async () => {
    h = await start('A', { limits: { freePerDay: 2 } });
    const ok = await from('203.0.113.60');
    expect(ok.headers['retry-after']).toBeUndefined();
    expect(ok.headers['x-quota-limit']).toBeUndefined();
    expect(ok.headers['ratelimit']).toBe(`"daily";r=1;t=${RESET_S}`);
    await from('203.0.113.60');
    const refused = await from('203.0.113.60');
    expect(refused.headers['retry-after']).toBe(String(RESET_S));
    expect(refused.json).toMatchObject({
      retry_after: RESET_S,
      quota_reset: new Date(nextUtcMidnight(T0)).toISOString(),
    });
  });
});

describe('CORS, OPTIONS, HEAD (D11, D23)', () => {
  test('preflight is answered and never counted; HEAD answers like GET without a body', async () => {
    h = await start('B', { limits: { freePerDay: 1 } });
    for (let i = 0; i < 3; i++) {
      const pre = await call(h.mainUrl, IP, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://example.org',
          'access-control-request-method': 'GET',
          'x-forwarded-for': '203.0.113.70',
        },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('*');
      expect(pre.headers['access-control-allow-methods']).toContain('GET');
    }
    const head = await call(h.mainUrl, IP, {
      method: 'HEAD',
      headers: { 'x-forwarded-for': '203.0.113.70' },
    });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['x-quota-used']).toBe('1'); // the preflights counted nothing
    const get = await from('203.0.113.70');
    expect(get.status).toBe(429);
    // Unknown paths are not counted.
    expect((await from('203.0.113.71', undefined, '/nope')).status).toBe(404);
    expect((await from('203.0.113.71')).status).toBe(200);
  });
});

describe('store faults', () => {
  test('a store that fails answers 503 store_unavailable as problem+json (onStoreFailure: closed)', async () => {
    h = await start('A');
    await h.store.close();
    const r = await from('203.0.113.80');
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ code: 'store_unavailable', status: 503 });
  });

  test('onStoreFailure: open serves uncounted while the store fails', async () => {
    h = await start('A', { onStoreFailure: 'open' });
    await h.store.close();
    const r = await from('203.0.113.81');
    expect(r.status).toBe(200);
    expect(r.headers['ratelimit']).toBeUndefined();
  });
});

/**
 * Burst limits through the real pipeline (in-process gateway, real backend process, embedded store, manual clock):
 * 429 rate_limited with Retry-After ≥ 1 and the burst policy's RateLimit fields beside the daily one on the main host,
 * each drop-in host's provider shape (Google OVER_QUERY_LIMIT, LocationIQ "Rate Limited Second/Minute", OpenCage's
 * 429...), refusals counted nowhere (D10: no counter, balance, usage or ledger change), the per-key limits of the
 * admin API in force at once, the metric by scope and window, and a reload that swaps the limits.
 */
import { compileConfig, validateConfig } from '../../../runtime/config';
import { ADAPTERS } from '../../../adapters';
import { call, T0, type Answer, type Harness } from '../../helpers/gateway-harness';
import { useGatewayFixture } from './fixture';

jest.setTimeout(60_000);

const gw = useGatewayFixture();
const REVERSE = '/v1/reverse?lat=48.8584&lon=2.2945';
const ADMIN = { authorization: 'Bearer admin-token-0123456789', 'content-type': 'application/json' };

/** A reverse request on each drop-in host with the key in the provider's own position. */
const DROP_IN: Record<string, (key: string) => string> = {
  bing: (k) => `/REST/v1/Locations/48.8584,2.2945?key=${k}`,
  geoapify: (k) => `/v1/geocode/reverse?lat=48.8584&lon=2.2945&apiKey=${k}`,
  geocodio: (k) => `/v1.7/reverse?q=48.8584,2.2945&api_key=${k}`,
  google: (k) => `/maps/api/geocode/json?latlng=48.8584,2.2945&key=${k}`,
  here: (k) => `/v1/revgeocode?at=48.8584,2.2945&lang=en-US&apiKey=${k}`,
  ipinfo: (k) => `/8.8.8.8/json?token=${k}`,
  ipstack: (k) => `/134.201.250.155?access_key=${k}`,
  locationiq: (k) => `/v1/reverse?key=${k}&lat=48.8584&lon=2.2945&format=json`,
  mapbox: (k) => `/geocoding/v5/mapbox.places/2.2945,48.8584.json?access_token=${k}`,
  nominatim: (k) => `/reverse?lat=48.8584&lon=2.2945&format=jsonv2&key=${k}`,
  opencage: (k) => `/geocode/v1/json?q=48.8584,2.2945&key=${k}`,
  pelias: (k) => `/v1/reverse?point.lat=48.8584&point.lon=2.2945&api_key=${k}`,
  photon: (k) => `/reverse?lat=48.8584&lon=2.2945&key=${k}`,
  positionstack: (k) => `/v1/reverse?access_key=${k}&query=48.8584,2.2945&limit=1`,
  tomtom: (k) => `/search/2/reverseGeocode/48.8584,2.2945.json?key=${k}`,
};

/** Each provider's rate-limit answer (providers.md; docs/adapters.md): HTTP status and what its body says. */
const PROVIDER_SHAPE: Record<string, { status: number; body: (a: Answer) => unknown; expected: unknown }> = {
  bing: { status: 429, body: (a) => a.json.statusCode, expected: 429 },
  geoapify: { status: 429, body: (a) => a.json.error, expected: 'Too Many Requests' },
  geocodio: { status: 429, body: (a) => typeof a.json.error, expected: 'string' },
  google: { status: 200, body: (a) => a.json.status, expected: 'OVER_QUERY_LIMIT' },
  here: { status: 429, body: (a) => a.json.error, expected: 'Too Many Requests' },
  ipinfo: { status: 429, body: (a) => a.json.error.title, expected: 'Rate limit exceeded' },
  ipstack: { status: 200, body: (a) => [a.json.success, a.json.error.code], expected: [false, 104] },
  locationiq: { status: 429, body: (a) => a.json, expected: { error: 'Rate Limited Second' } },
  mapbox: { status: 429, body: (a) => typeof a.json.message, expected: 'string' },
  nominatim: { status: 429, body: (a) => typeof a.json.error, expected: 'string' },
  opencage: { status: 429, body: (a) => [a.json.status.code, a.json.results], expected: [429, []] },
  pelias: {
    status: 429,
    body: (a) => [typeof a.json.geocoding.errors[0], a.json.features],
    expected: ['string', []],
  },
  photon: { status: 429, body: (a) => typeof a.json.message, expected: 'string' },
  positionstack: { status: 429, body: (a) => a.json.error.code, expected: 'rate_limit_reached' },
  tomtom: { status: 429, body: (a) => JSON.stringify(a.json).includes('TooManyRequests'), expected: true },
};
const DROP_INS = Object.keys(ADAPTERS).filter((a) => a !== 'native');

let h: Harness;
const start = (burst: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  gw
    .start({
      policy: 'A',
      backendUrl: gw.backend.url,
      config: {
        trustProxy: ['127.0.0.1/32'],
        limits: { freePerDay: 100 },
        hosts: [
          { name: 'localhost', adapter: 'native' },
          ...DROP_INS.map((a) => ({ name: `${a}.localhost`, adapter: a })),
        ],
        burst,
        ...extra,
      },
    })
    .then((x) => (h = x));

const main = (ip: string, key?: string) =>
  call(h.mainUrl, REVERSE, { headers: { 'x-forwarded-for': ip, ...(key ? { 'x-api-key': key } : {}) } });
const metrics = async (): Promise<string> => (await fetch(`${h.adminUrl}/metrics`)).text();

test('every drop-in adapter has a request and a provider shape in the tables', () => {
  expect(Object.keys(DROP_IN).sort()).toEqual([...DROP_INS].sort());
  expect(Object.keys(PROVIDER_SHAPE).sort()).toEqual([...DROP_INS].sort());
});

describe('main host', () => {
  it('refuses the request over the per-second key limit with 429 rate_limited, Retry-After ≥ 1 and the burst RateLimit fields beside the daily ones; the next second serves again', async () => {
    await start({ key: { perSecond: 3 } });
    const { key } = await h.key((await h.account()).id);
    const ok = await main('203.0.113.1', key);
    expect(ok.status).toBe(200);
    expect(ok.headers['ratelimit-policy']).toBe('"daily";q=100;w=86400, "burst";q=3;w=1');
    expect(ok.headers['ratelimit']).toMatch(/^"daily";r=99;t=\d+, "burst";r=2;t=1$/);
    expect((await main('203.0.113.1', key)).status).toBe(200);
    expect((await main('203.0.113.1', key)).status).toBe(200);
    const r = await main('203.0.113.1', key);
    expect(r.status).toBe(429);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.json).toMatchObject({ code: 'rate_limited', status: 429, retry_after: 1 });
    expect(r.json.detail).toMatch(/More than 3 requests per second for this key/);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(r.headers['ratelimit-policy']).toBe('"burst";q=3;w=1');
    expect(r.headers['ratelimit']).toBe('"burst";r=0;t=1');
    h.clock.advance(1000);
    expect((await main('203.0.113.1', key)).status).toBe(200);
  });

  it('the per-minute window says how many seconds are left in the minute; anonymous callers are limited per address unit', async () => {
    await start({ anonymous: { perMinute: 2 } });
    h.clock.set(T0 + 15_000);
    expect((await main('198.51.100.9')).status).toBe(200);
    expect((await main('198.51.100.9')).status).toBe(200);
    const r = await main('198.51.100.9');
    expect([r.status, r.json.code, r.headers['retry-after']]).toEqual([429, 'rate_limited', '45']);
    expect(r.headers['ratelimit-policy']).toBe('"burst-minute";q=2;w=60');
    // Another address has its own window.
    expect((await main('198.51.100.10')).status).toBe(200);
    h.clock.set(T0 + 60_000);
    expect((await main('198.51.100.9')).status).toBe(200);
  });

  it('the account limit covers all its keys together', async () => {
    await start({ account: { perSecond: 2 } });
    const acc = await h.account();
    const k1 = await h.key(acc.id);
    const k2 = await h.key(acc.id);
    expect((await main('203.0.113.2', k1.key)).status).toBe(200);
    expect((await main('203.0.113.2', k2.key)).status).toBe(200);
    const r = await main('203.0.113.2', k1.key);
    expect([r.status, r.json.code]).toEqual([429, 'rate_limited']);
    expect(r.json.detail).toMatch(/for this account/);
  });

  it('a refusal is counted nowhere (D10): no daily counter, no balance, no usage or ledger change', async () => {
    // Free allowance 1: the second request is billed, so a refused one would show in balance and ledger.
    await start({ key: { perSecond: 2 } }, { limits: { freePerDay: 1, pricePerRequest: 10 } });
    const acc = await h.account({ balance: 1000 });
    const { key, record } = await h.key(acc.id);
    const subjects = [`key:${record.id}`, `account:${acc.id}`];
    expect((await main('203.0.113.3', key)).status).toBe(200);
    expect((await main('203.0.113.3', key)).status).toBe(200);
    const balance = (await h.store.getAccount(acc.id))?.balance;
    const usage = await h.store.usage(subjects, '2026-11-01', '2026-11-30');
    const ledger = await h.store.ledger(acc.id, 100);
    for (let i = 0; i < 5; i++) expect((await main('203.0.113.3', key)).json.code).toBe('rate_limited');
    expect((await h.store.getAccount(acc.id))?.balance).toBe(balance);
    expect(await h.store.usage(subjects, '2026-11-01', '2026-11-30')).toEqual(usage);
    expect(await h.store.ledger(acc.id, 100)).toEqual(ledger);
    expect(balance).toBe(990);
    // The refusals are in the metrics by scope and window, and as the admission refusal code; never a key.
    const text = await metrics();
    expect(text).toMatch(/geogate_burst_refusals_total\{scope="key",window="second"\} 5/);
    expect(text).toMatch(/geogate_admission_refusals_total\{code="rate_limited"\} 5/);
    expect(text).not.toContain(key);
    expect(text).not.toContain(acc.id);
  });

  it('a request the admission refuses gives its burst unit back: the limit counts admitted requests only', async () => {
    // freePerDay 1 and no balance: later requests are refused 402 by the store and must not use a burst unit.
    await start({ key: { perSecond: 2 } }, { limits: { freePerDay: 1 } });
    const acc = await h.account();
    const { key } = await h.key(acc.id);
    expect((await main('203.0.113.4', key)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await main('203.0.113.4', key)).json.code).toBe('no_credits');
    await h.store.credit(acc.id, 100_000, null, h.clock.now());
    expect((await main('203.0.113.4', key)).status).toBe(200);
    expect((await main('203.0.113.4', key)).json.code).toBe('rate_limited');
  });
});

describe('per-key limits (admin API)', () => {
  it('PUT /admin/keys/{id}/burst sets the key its own limits, in force on the next request; null clears them', async () => {
    await start({ key: { perSecond: 100 } });
    const { key, record } = await h.key((await h.account()).id);
    const put = (body: unknown) =>
      call(h.adminUrl, `/admin/keys/${record.id}/burst`, {
        method: 'PUT',
        headers: ADMIN,
        body: JSON.stringify(body),
      });
    const set = await put({ perSecond: 1 });
    expect([set.status, set.json]).toEqual([200, { perSecond: 1, perMinute: null }]);
    expect((await main('203.0.113.5', key)).status).toBe(200);
    expect((await main('203.0.113.5', key)).status).toBe(429);
    const detail = await call(h.adminUrl, `/admin/keys/${record.id}`, { headers: ADMIN });
    expect(detail.json.burst).toEqual({ perSecond: 1, perMinute: null });
    expect((await put({ perSecond: null, perMinute: null })).json).toEqual({
      perSecond: null,
      perMinute: null,
    });
    expect((await main('203.0.113.5', key)).status).toBe(200);
  });

  it.each([
    [{ perSecond: 0 }, 'perSecond'],
    [{ perMinute: -3 }, 'perMinute'],
    [{ perSecond: 1.5 }, 'perSecond'],
    [{ perSecond: '10' }, 'perSecond'],
    [{ perSecond: 2_000_000_000 }, 'perSecond'],
  ])('refuses %j with 400 naming %s, and changes nothing', async (body, field) => {
    await start({});
    const { record } = await h.key((await h.account()).id);
    const r = await call(h.adminUrl, `/admin/keys/${record.id}/burst`, {
      method: 'PUT',
      headers: ADMIN,
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain(field);
    expect((await h.store.getKey(record.id))?.burst).toBeUndefined();
  });

  it('an unknown field or key is refused clearly (400, 404), never a 500', async () => {
    await start({});
    const { record } = await h.key((await h.account()).id);
    const odd = await call(h.adminUrl, `/admin/keys/${record.id}/burst`, {
      method: 'PUT',
      headers: ADMIN,
      body: JSON.stringify({ perHour: 5 }),
    });
    expect(odd.status).toBe(400);
    const none = await call(h.adminUrl, '/admin/keys/key_nope/burst', {
      method: 'PUT',
      headers: ADMIN,
      body: JSON.stringify({ perSecond: 5 }),
    });
    expect(none.status).toBe(404);
  });
});

describe('reload', () => {
  it('a reloaded config swaps the limits at once, and keeps the counts of the current window', async () => {
    await start({ anonymous: { perSecond: 2 } });
    for (let i = 0; i < 2; i++) expect((await main('198.51.100.20')).status).toBe(200);
    expect((await main('198.51.100.20')).status).toBe(429);
    const next = (burst: unknown) =>
      compileConfig(
        validateConfig(
          {
            policy: 'A',
            listen: { host: '127.0.0.1', port: 0 },
            admin: { listen: { host: '127.0.0.1', port: 0 }, token: 'admin-token-0123456789' },
            backend: { url: gw.backend.url, timeoutMs: 5000 },
            store: h.config.store,
            keyPepper: 'test-pepper-0123456789abcdef',
            trustProxy: ['127.0.0.1/32'],
            limits: { freePerDay: 100 },
            hosts: [
              { name: 'localhost', adapter: 'native' },
              ...DROP_INS.map((a) => ({ name: `${a}.localhost`, adapter: a })),
            ],
            ...(burst === undefined ? {} : { burst }),
          },
          'test.yaml',
          {},
        ),
        'test.yaml',
      );
    h.gateway.reload(next({ anonymous: { perSecond: 3 } }));
    expect((await main('198.51.100.20')).status).toBe(200);
    expect((await main('198.51.100.20')).status).toBe(429);
    h.gateway.reload(next(undefined));
    for (let i = 0; i < 5; i++) expect((await main('198.51.100.20')).status).toBe(200);
  });
});

describe('drop-in hosts render their provider rate-limit error', () => {
  it.each(DROP_INS.map((a) => [a]))('%s', async (adapter) => {
    await start({ key: { perSecond: 1 } });
    const { key } = await h.key((await h.account()).id);
    const on = (path: string) =>
      call(h.mainUrl, path, { headers: { host: `${adapter}.localhost`, 'x-forwarded-for': '203.0.113.30' } });
    const path = (DROP_IN[adapter] as (k: string) => string)(key);
    const first = await on(path);
    expect(first.status).toBe(200);
    const r = await on(path);
    const shape = PROVIDER_SHAPE[adapter] as (typeof PROVIDER_SHAPE)[string];
    expect(r.status).toBe(shape.status);
    expect(shape.body(r)).toEqual(shape.expected);
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(r.headers['ratelimit']).toBe('"burst";r=0;t=1');
  });

  it('LocationIQ names the window it met: "Rate Limited Minute"', async () => {
    await start({ key: { perMinute: 1 } });
    const { key } = await h.key((await h.account()).id);
    const on = () =>
      call(h.mainUrl, (DROP_IN['locationiq'] as (k: string) => string)(key), {
        headers: { host: 'locationiq.localhost', 'x-forwarded-for': '203.0.113.31' },
      });
    expect((await on()).status).toBe(200);
    const r = await on();
    expect([r.status, r.json]).toEqual([429, { error: 'Rate Limited Minute' }]);
    expect(r.headers['retry-after']).toBe('60');
  });
});

/**
 * A way out of a refusal, on the main host and on every drop-in host (real gateway and backend processes): a refusal
 * a top-up lifts points at the top-up page (the main host's `links.top_up`; a drop-in host's free-text field, its
 * body otherwise the provider's), every problem `type` is a problem page, 429 quota_exceeded carries Retry-After in
 * rule set A on every host and in B on the main host (B's drop-in hosts answer as their providers, without it:
 * headers.ts `retryAfterHost`), and every 401 carries WWW-Authenticate naming the accepted schemes.
 */
import { ADAPTERS } from '../../../adapters';
import { secondsToReset } from '../../../gateway/http/headers';
import { call, useDropIns, type DropIns } from '../harness';

const DASH = 'https://dash.example.net';
const TOP_UP = `${DASH}/credit`;

/** A reverse request on each drop-in host with the key in the provider's own position. */
const REVERSE: Record<string, (key: string) => string> = {
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
const DROP_INS = Object.keys(ADAPTERS).filter((a) => a !== 'native');

/** The drop-in hosts with no free-text field in their error body: the provider's fixed text only. */
const NO_FREE_TEXT = new Set(['locationiq']);

test('every drop-in adapter has a request in the table', () => {
  expect(Object.keys(REVERSE).sort()).toEqual([...DROP_INS].sort());
});

/** Point the gateway's error answers at a dashboard (the composition root does this from `dashboard.publicUrl`). */
function withLinks(env: DropIns): void {
  env.harness.config.customerLinks = { problems: `${DASH}/problems/`, topUp: TOP_UP };
}

describe.each(['A', 'B'] as const)('rule set %s', (set) => {
  // Rule set A counts the free allowance per key and network: each case calls from its own address (D3, D5).
  const env = useDropIns(DROP_INS, { policy: set, freePerDay: 1, trustProxy: ['127.0.0.1/32'] });
  let last = 0;
  const fresh = () => `198.51.100.${++last}`;
  const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
  let mainFrom = fresh();
  const main = (key: string) =>
    call(env.harness.mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945', {
      headers: { 'x-api-key': key, 'x-forwarded-for': mainFrom },
    });

  test('main host: the refusal a top-up lifts links the top-up page, its type is its problem page', async () => {
    withLinks(env);
    mainFrom = fresh();
    const key = await env.freshKey();
    expect((await main(key)).status).toBe(200);
    const r = await main(key);
    const code = set === 'A' ? 'no_credits' : 'quota_exceeded';
    expect(r.status).toBe(set === 'A' ? 402 : 429);
    expect(r.json).toMatchObject({ code, type: `${DASH}/problems/${code}`, links: { top_up: TOP_UP } });
    expect(typeof r.json.request_id).toBe('string');
    if (set === 'B') {
      const wait = Number(r.headers['retry-after']);
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBe(secondsToReset(env.harness.clock.now()));
      expect(r.json.retry_after).toBe(wait);
      expect(r.headers['x-quota-reset']).toBeDefined();
    } else {
      expect(r.headers['retry-after']).toBeUndefined();
    }
  });

  test('main host: 401 names the accepted schemes; a refusal no top-up lifts has no link', async () => {
    withLinks(env);
    const r = await main(env.unknownKey);
    expect(r.status).toBe(401);
    expect(r.json.links).toBeUndefined();
    expect(r.json.type).toBe(`${DASH}/problems/invalid_key`);
    expect(r.headers['www-authenticate']).toBe(
      set === 'A'
        ? 'Bearer realm="geogate", Basic realm="geogate", charset="UTF-8", ApiKey realm="geogate", header="X-API-Key X-Goog-Api-Key", query="key", form="key"'
        : 'ApiKey realm="geogate", header="X-API-Key", query="key"',
    );
    expect(r.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });

  test('main host without a dashboard: problem types stay URNs and no link is invented', async () => {
    env.harness.config.customerLinks = null;
    mainFrom = fresh();
    const key = await env.freshKey();
    await main(key);
    const r = await main(key);
    expect(r.json.type).toMatch(/^urn:geogate:problem:/);
    expect(r.json.links).toBeUndefined();
    withLinks(env);
  });

  test.each(DROP_INS)(
    `%s: the provider's body with the top-up page in its free text; no Retry-After on B's 429; WWW-Authenticate on 401`,
    async (adapter) => {
      withLinks(env);
      const path = REVERSE[adapter] as (k: string) => string;
      const a1 = fresh();
      const key = await env.freshKey();
      const ok = await call(env.url(adapter), path(key), from(a1));
      expect(ok.status).toBe(200);
      const refused = await call(env.url(adapter), path(key), from(a1));
      // The provider's shape: the same body as without links except the free text.
      env.harness.config.customerLinks = null;
      const a2 = fresh();
      const key2 = await env.freshKey();
      await call(env.url(adapter), path(key2), from(a2));
      const plain = await call(env.url(adapter), path(key2), from(a2));
      withLinks(env);
      expect(refused.status).toBe(plain.status);
      const withoutUrl = refused.text.split(` Top up: ${TOP_UP}`).join('');
      const stripIds = (s: string) =>
        s.replace(/"(request_?[iI]d|requestId|traceId|x-request-id)":"[^"]*"/g, '');
      expect(stripIds(withoutUrl)).toBe(stripIds(plain.text));
      if (NO_FREE_TEXT.has(adapter)) expect(refused.text).not.toContain(TOP_UP);
      else expect(refused.text).toContain(`Top up: ${TOP_UP}`);
      // A client that honours Retry-After on a 429 (python-requests) would sleep until 00:00 UTC on a drop-in host.
      if (set === 'B' && refused.status === 429) expect(refused.headers['retry-after']).toBeUndefined();
      const unknown = await call(env.url(adapter), path(env.unknownKey), from(fresh()));
      if (unknown.status === 401) expect(unknown.headers['www-authenticate']).toMatch(/realm="geogate"/);
      else expect(unknown.headers['www-authenticate']).toBeUndefined();
    },
  );
});

/**
 * Issue 10 items 1, 2 and 4 through a running gateway: each backend kind behind its connector, against replay servers
 * answering what each project's documentation records (test/fixtures/connectors/*, each naming its source). A record
 * and "no result" are charged; 5xx, timeouts, refused or reset connections and 2xx answers the connector cannot read
 * are released and answered 502/504 in the host's shape (D11 widened). The backend request keeps the URL prefix,
 * carries the operator's header and query parameter, and never the client's credential or cookies.
 */
import type { Harness } from '../../helpers/gateway-harness';
import { call } from '../../helpers/gateway-harness';
import { closedPort, startReplay, type ReplayServer, type Reply } from '../../helpers/replay-server';
import { GEOGATE_NOTHING, GEOGATE_RECORD } from '../../fixtures/connectors/geogate';
import { NOMINATIM_HOUSE, NOMINATIM_NOTHING } from '../../fixtures/connectors/nominatim';
import { PELIAS_ADDRESS, PELIAS_NOTHING } from '../../fixtures/connectors/pelias';
import { PHOTON_HOUSE, PHOTON_NOTHING } from '../../fixtures/connectors/photon';
import { gatewayStarter } from './fixture';

const start = gatewayStarter();

type Kind = 'geogate' | 'nominatim' | 'photon' | 'pelias';
/** Per kind: the recorded record answer, its "no result", its prefix, and the street it shows. */
const KINDS: Record<
  Kind,
  { record: Reply; nothing: Reply; prefix: string; street: string | null; postcode: string | null }
> = {
  geogate: {
    record: { status: 200, body: GEOGATE_RECORD },
    nothing: { status: 404, body: GEOGATE_NOTHING, type: 'application/problem+json' },
    prefix: '/geo',
    street: null,
    postcode: '10036',
  },
  nominatim: {
    record: { status: 200, body: NOMINATIM_HOUSE.body },
    nothing: { status: 200, body: NOMINATIM_NOTHING },
    prefix: '/nominatim',
    street: 'Via Guglielmo Marconi',
    postcode: '40122',
  },
  photon: {
    record: { status: 200, body: PHOTON_HOUSE.body },
    nothing: { status: 200, body: PHOTON_NOTHING },
    prefix: '',
    street: 'Olympischer Platz',
    postcode: '14053',
  },
  pelias: {
    record: { status: 200, body: PELIAS_ADDRESS.body },
    nothing: { status: 200, body: PELIAS_NOTHING },
    prefix: '/api',
    street: 'West 26th Street',
    postcode: '10010',
  },
};

const replays = {} as Record<Kind, ReplayServer>;
let h: Harness;
let key: string;
let keyId: string;

beforeAll(async () => {
  for (const kind of Object.keys(KINDS) as Kind[]) replays[kind] = await startReplay(KINDS[kind].record);
  const down = await closedPort();
  const backends: Record<string, unknown> = {};
  const hosts: Record<string, unknown>[] = [];
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const common = {
      kind,
      timeoutMs: 400,
      headers: { 'X-Upstream-Key': `up-${kind}` },
      query: { ukey: 'op' },
    };
    backends[kind] = { ...common, url: `${replays[kind].url}${KINDS[kind].prefix}/` };
    backends[`${kind}-down`] = { ...common, url: `http://127.0.0.1:${down}/` };
    hosts.push({ name: `${kind}.localhost`, adapter: 'native', backend: kind });
    hosts.push({ name: `${kind}-down.localhost`, adapter: 'native', backend: `${kind}-down` });
    hosts.push({ name: `${kind}.google.localhost`, adapter: 'google', backend: kind });
  }
  h = await start({
    policy: 'A',
    backendUrl: replays.geogate.url,
    config: { limits: { freePerDay: 1000 }, backends, hosts },
  });
  const acc = await h.account({ balance: 0 });
  const k = await h.key(acc.id);
  key = k.key;
  keyId = k.record.id;
}, 30_000);

afterAll(async () => {
  for (const r of Object.values(replays)) await r.close();
});

/** Requests counted today to the key (free and billed). */
async function counted(): Promise<number> {
  const u = (await h.store.usage([`key:${keyId}`], '2026-11-22', '2026-11-22'))[0];
  return (u?.free ?? 0) + (u?.billed ?? 0);
}

const reverse = (host: string, path = `/v1/reverse?lat=44.50155&lon=11.33989&key=${key}`) =>
  call(h.mainUrl, path, { headers: { host, cookie: 'session=client-cookie', 'accept-language': 'it' } });

const kinds = Object.keys(KINDS) as Kind[];

describe.each(kinds)('kind %s', (kind) => {
  const k = KINDS[kind];
  afterEach(() => replays[kind].reply(k.record));

  test('a record is answered at street level and charged; the request keeps the prefix and the operator parts', async () => {
    const before = await counted();
    replays[kind].received.length = 0;
    const a = await reverse(`${kind}.localhost`);
    expect(a.status).toBe(200);
    expect(a.json.address.street ?? null).toBe(k.street);
    expect(a.json.address.postcode).toBe(k.postcode);
    expect(await counted()).toBe(before + 1);
    const got = replays[kind].received[0];
    expect(got?.url.startsWith(`${k.prefix}/`)).toBe(true);
    expect(got?.url).toContain('ukey=op');
    expect(got?.headers['x-upstream-key']).toBe(`up-${kind}`);
    // The client's credential and cookie never reach the backend.
    expect(JSON.stringify(got)).not.toContain(key);
    expect(got?.headers.cookie).toBeUndefined();
  });

  test('"no result" is an answer: 404 not_found, charged', async () => {
    replays[kind].reply(k.nothing);
    const before = await counted();
    const a = await reverse(`${kind}.localhost`);
    expect(a.status).toBe(404);
    expect(a.json.code).toBe('not_found');
    expect(await counted()).toBe(before + 1);
  });

  test.each<[string, number, string, Reply]>([
    ['a 500', 502, 'backend_unavailable', { status: 500, body: { error: 'internal' } }],
    ['a 503', 502, 'backend_unavailable', { status: 503, body: 'Service Unavailable', type: 'text/plain' }],
    [
      'junk in a 200',
      502,
      'backend_unavailable',
      { status: 200, body: '<html>oops</html>', type: 'text/html' },
    ],
    ['a 200 of the wrong shape', 502, 'backend_unavailable', { status: 200, body: { features: 'no' } }],
    ['a reset connection', 502, 'backend_unavailable', { reset: true }],
    ['a timeout', 504, 'backend_timeout', { delayMs: 1500, status: 200, body: {} }],
  ])('%s is released and answered %i %s', async (_name, status, code, reply) => {
    replays[kind].reply(reply);
    const before = await counted();
    const a = await reverse(`${kind}.localhost`);
    expect(a.status).toBe(status);
    expect(a.json.code).toBe(code);
    expect(await counted()).toBe(before);
  });

  test('a refused connection is released and answered 502', async () => {
    const before = await counted();
    const a = await reverse(`${kind}-down.localhost`);
    expect(a.status).toBe(502);
    expect(a.json.code).toBe('backend_unavailable');
    expect(await counted()).toBe(before);
  });

  test("failures are answered in the host's shape (Google: status UNKNOWN_ERROR), released", async () => {
    replays[kind].reply({ status: 500, body: {} });
    const before = await counted();
    const a = await reverse(
      `${kind}.google.localhost`,
      `/maps/api/geocode/json?latlng=44.50155,11.33989&key=${key}`,
    );
    expect(a.status).toBe(200);
    expect(a.json.status).toBe('UNKNOWN_ERROR');
    expect(a.json.results).toEqual([]);
    expect(await counted()).toBe(before);
    replays[kind].reply(k.record);
    const ok = await reverse(
      `${kind}.google.localhost`,
      `/maps/api/geocode/json?latlng=44.50155,11.33989&key=${key}`,
    );
    expect(ok.json.status).toBe('OK');
    const route = ok.json.results[0].address_components.find((c: { types: string[] }) =>
      c.types.includes('route'),
    );
    expect(route?.long_name ?? null).toBe(k.street);
  });
});

test('IP lookups on a host whose backend has none go to the default geogate backend', async () => {
  replays.geogate.received.length = 0;
  replays.geogate.reply({
    status: 200,
    body: {
      ip: '8.8.8.8',
      countryCode: 'US',
      country: 'United States',
      region: null,
      city: null,
      lat: 37.751,
      lon: -97.822,
      timezone: null,
      asn: 15169,
      org: 'GOOGLE',
      attribution: 'test',
    },
  });
  const a = await reverse('nominatim.localhost', `/v1/ipv4?ip=8.8.8.8&key=${key}`);
  expect(a.status).toBe(200);
  expect(a.json.country_code).toBe('US');
  expect(replays.geogate.received[0]?.url).toBe('/ipv4?ip=8.8.8.8');
  replays.geogate.reply(KINDS.geogate.record);
});

test("the Nominatim request passes on the client's language", async () => {
  replays.nominatim.received.length = 0;
  await reverse('nominatim.localhost');
  expect(replays.nominatim.received[0]?.url).toBe(
    '/nominatim/reverse?format=jsonv2&lat=44.50155&lon=11.33989&addressdetails=1&accept-language=it&ukey=op',
  );
});

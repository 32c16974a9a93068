/**
 * Issue 11 items 1, 3 and 5 through a running gateway: `GET /v1/search` on the main host behind each backend kind that
 * can search, against replay servers answering what each project's documentation records (test/fixtures/connectors/
 * search.ts names each source). A list (an empty one too) is an answer: counted and billed as one request. A host
 * whose backend cannot search (an `http` backend) answers 501 search_unavailable, never counted; bad parameters are
 * 400 invalid_parameter naming the parameter, never counted.
 */
import type { Harness } from '../../helpers/gateway-harness';
import { call } from '../../helpers/gateway-harness';
import { startReplay, type ReplayServer, type Reply } from '../../helpers/replay-server';
import {
  GEOGATE_SEARCH,
  GEOGATE_SEARCH_NOTHING,
  NOMINATIM_SEARCH,
  PELIAS_SEARCH,
  PHOTON_SEARCH,
} from '../../fixtures/connectors/search';
import { PELIAS_NOTHING } from '../../fixtures/connectors/pelias';
import { PHOTON_NOTHING } from '../../fixtures/connectors/photon';
import { gatewayStarter } from './fixture';

const start = gatewayStarter();

type Kind = 'geogate' | 'nominatim' | 'photon' | 'pelias';
/** Per kind: the recorded answers, its first place, and the request sent for `q=paris&limit=2&countrycodes=<cc>`. */
const KINDS: Record<Kind, { results: Reply; nothing: Reply; first: string; path: string; cc: string }> = {
  geogate: {
    results: { status: 200, body: GEOGATE_SEARCH },
    nothing: { status: 200, body: GEOGATE_SEARCH_NOTHING },
    first: 'Paris, Île-de-France, France',
    path: '/search?q=paris&limit=2&countrycodes=fr',
    cc: 'fr',
  },
  nominatim: {
    results: { status: 200, body: NOMINATIM_SEARCH },
    nothing: { status: 200, body: [] },
    first: 'London, Greater London, England, SW1A 2DU, United Kingdom',
    path: '/search?format=jsonv2&addressdetails=1&q=paris&limit=2&countrycodes=fr',
    cc: 'fr',
  },
  photon: {
    results: { status: 200, body: PHOTON_SEARCH },
    nothing: { status: 200, body: PHOTON_NOTHING },
    first: 'Berlin, Germany',
    // Photon has no country filter: the gateway asks for 50 and keeps the country's (the README's are German).
    path: '/api?q=paris&limit=50',
    cc: 'de',
  },
  pelias: {
    results: { status: 200, body: PELIAS_SEARCH },
    nothing: { status: 200, body: PELIAS_NOTHING },
    first: '30 West 26th Street, Manhattan, NY',
    path: '/v1/search?text=paris&size=2&boundary.country=FR',
    cc: 'fr',
  },
};
const kinds = Object.keys(KINDS) as Kind[];

const replays = {} as Record<Kind, ReplayServer>;
let plain: ReplayServer;
let h: Harness;
let key: string;
let keyId: string;

beforeAll(async () => {
  for (const kind of kinds) replays[kind] = await startReplay(KINDS[kind].results);
  plain = await startReplay({ status: 200, body: { ok: true } });
  const backends: Record<string, unknown> = { plain: { kind: 'http', url: `${plain.url}/`, timeoutMs: 400 } };
  const hosts: Record<string, unknown>[] = [
    { name: 'plain.localhost', adapter: 'native', backend: 'plain' },
    { name: 'plain.google.localhost', adapter: 'google', backend: 'plain' },
    { name: 'plain.nominatim.localhost', adapter: 'nominatim', backend: 'plain' },
    { name: 'nominatim.google.localhost', adapter: 'google', backend: 'nominatim' },
  ];
  for (const kind of kinds) {
    backends[kind] = { kind, url: `${replays[kind].url}/`, timeoutMs: 400 };
    hosts.push({ name: `${kind}.localhost`, adapter: 'native', backend: kind });
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
  for (const r of [...Object.values(replays), plain]) await r.close();
});

/** Requests counted today to the key (free and billed). */
async function counted(): Promise<number> {
  const u = (await h.store.usage([`key:${keyId}`], '2026-11-22', '2026-11-22'))[0];
  return (u?.free ?? 0) + (u?.billed ?? 0);
}

const search = (host: string, query: string) =>
  call(h.mainUrl, `/v1/search?${query}&key=${key}`, { headers: { host } });

describe.each(kinds)('GET /v1/search behind %s', (kind) => {
  const k = KINDS[kind];
  afterEach(() => replays[kind].reply(k.results));

  test('answers the places best first and counts one request; the backend gets the translated search', async () => {
    const before = await counted();
    replays[kind].received.length = 0;
    const a = await search(`${kind}.localhost`, `q=paris&limit=2&countrycodes=${k.cc}`);
    expect(a.status).toBe(200);
    expect(a.json.results[0].display_name).toBe(k.first);
    expect(a.json.results[0].location).toEqual({
      lat: expect.any(Number) as number,
      lon: expect.any(Number) as number,
    });
    expect(typeof a.json.attribution).toBe('string');
    expect(await counted()).toBe(before + 1);
    expect(replays[kind].received[0]?.url).toBe(k.path);
    expect(JSON.stringify(replays[kind].received[0])).not.toContain(key);
  });

  test('nothing matched is an empty list, answered 200 and counted', async () => {
    replays[kind].reply(k.nothing);
    const before = await counted();
    const a = await search(`${kind}.localhost`, 'q=xqzzy');
    expect(a.status).toBe(200);
    expect(a.json.results).toEqual([]);
    expect(await counted()).toBe(before + 1);
  });

  test('a backend failure is released: 502, not counted', async () => {
    replays[kind].reply({ status: 500, body: {} });
    const before = await counted();
    const a = await search(`${kind}.localhost`, 'q=paris');
    expect(a.status).toBe(502);
    expect(a.json.code).toBe('backend_unavailable');
    expect(await counted()).toBe(before);
  });
});

test('a host whose backend cannot search answers 501 search_unavailable, never counted, nothing forwarded', async () => {
  const before = await counted();
  plain.received.length = 0;
  const a = await search('plain.localhost', 'q=paris');
  expect(a.status).toBe(501);
  expect(a.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(a.json).toMatchObject({ code: 'search_unavailable', status: 501, title: 'Search unavailable' });
  expect(await counted()).toBe(before);
  expect(plain.received).toEqual([]);
});

test.each([
  ['q=', 'q'],
  ['q=%20%20', 'q'],
  ['q=---', 'q'],
  [`q=${'a'.repeat(201)}`, 'q'],
  ['q=paris&limit=0', 'limit'],
  ['q=paris&limit=ten', 'limit'],
  ['q=paris&countrycodes=fra', 'countrycodes'],
  ['q=paris&q=lyon', 'q'],
  ['q=paris&lang=%3Cscript%3E', 'lang'],
])('%s is 400 invalid_parameter naming %s, never counted', async (query, parameter) => {
  const before = await counted();
  const a = await search('geogate.localhost', query);
  expect(a.status).toBe(400);
  expect(a.json).toMatchObject({ code: 'invalid_parameter', parameter });
  expect(await counted()).toBe(before);
});

test.each([
  ['plain.google.localhost', '/maps/api/geocode/json?address=Paris', 200, { status: 'INVALID_REQUEST' }],
  ['plain.nominatim.localhost', '/search?q=Paris&format=json', 501, { error: { code: 501 } }],
])(
  "%s: a forward lookup on a backend that cannot search is the provider's refusal (%s), never counted",
  async (host, path, status, body) => {
    const before = await counted();
    const a = await call(h.mainUrl, `${path}&key=${key}`, { headers: { host } });
    expect(a.status).toBe(status);
    expect(a.json).toMatchObject(body);
    expect(await counted()).toBe(before);
  },
);

test('a drop-in host translates its forward lookup for its backend (Google address= → Nominatim /search)', async () => {
  replays.nominatim.received.length = 0;
  const before = await counted();
  const a = await call(h.mainUrl, `/maps/api/geocode/json?address=london&components=country:GB&key=${key}`, {
    headers: { host: 'nominatim.google.localhost' },
  });
  expect(a.status).toBe(200);
  expect(a.json.status).toBe('OK');
  expect(a.json.results[0].formatted_address).toBe(
    'London, Greater London, England, SW1A 2DU, United Kingdom',
  );
  expect(await counted()).toBe(before + 1);
  expect(replays.nominatim.received[0]?.url).toBe(
    '/search?format=jsonv2&addressdetails=1&q=london&limit=5&countrycodes=gb',
  );
});

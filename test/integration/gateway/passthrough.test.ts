/**
 * D26 (issue 10 item 3) through a running gateway: passthrough routes forwarded as they are to the host's backend
 * (a replay server standing in for Nominatim, and an `http` backend standing in for a commercial API), counted and
 * billed `cost` times with the translated endpoints' identity, allowance and refusals; every credential position
 * stripped (query, headers, form body), cookies never forwarded, answers streamed (10 MB with flat memory), unsafe
 * paths refused 400, and D11: 5xx, timeouts and refused connections released.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Harness } from '../../helpers/gateway-harness';
import { call } from '../../helpers/gateway-harness';
import {
  closedPort,
  startReplay,
  type ReplayServer,
  type Received,
  type Reply,
} from '../../helpers/replay-server';
import { NOMINATIM_STATUS } from '../../fixtures/connectors/nominatim';
import { gatewayStarter } from './fixture';

const start = gatewayStarter();

/** Nominatim's `/search?format=json` answer (docs/api/Search.md: a list of places, the Output.md JSON layout). */
const SEARCH = [
  {
    place_id: '100149',
    licence: 'Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright',
    osm_type: 'node',
    osm_id: '107775',
    lat: '51.5073219',
    lon: '-0.1276474',
    display_name: 'London, Greater London, England, SW1A 2DU, United Kingdom',
    class: 'place',
    type: 'city',
    importance: 0.9654895765402,
  },
];

let nom: ReplayServer;
let api: ReplayServer;
let h: Harness;
let keyId: string;
let key: string;

const BIG = 10 * 1024 * 1024;
const CHUNK = 64 * 1024;
/** A backend that streams 10 MB in 64 KB chunks, each written only once the previous one drained. */
let big: http.Server;
let bigUrl: string;
/** Bytes the big backend has written so far (it writes only as fast as its socket drains). */
let bigSent = 0;

const byPath = (r: Received): Reply => {
  if (r.url.startsWith('/nominatim/search')) return { status: 200, body: SEARCH };
  if (r.url.startsWith('/nominatim/status')) return { status: 200, body: NOMINATIM_STATUS };
  if (r.url.startsWith('/nominatim/v1/')) return { status: 200, body: { ok: true, body: r.body } };
  return { status: 404, body: { error: 'not here' } };
};

beforeAll(async () => {
  nom = await startReplay({ status: 200, body: {} });
  nom.reply(byPath);
  api = await startReplay({ status: 200, body: { results: [], status: 'OK' } });
  big = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'set-cookie': 'upstream=1' });
    bigSent = 0;
    const chunk = Buffer.alloc(CHUNK, 0x61);
    const more = (): void => {
      while (bigSent < BIG) {
        bigSent += CHUNK;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
    void req;
  });
  await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
  bigUrl = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
  const down = await closedPort();
  h = await start({
    policy: 'A',
    backendUrl: nom.url,
    config: {
      limits: { freePerDay: 6 },
      backends: {
        osm: {
          kind: 'nominatim',
          url: `${nom.url}/nominatim/`,
          timeoutMs: 400,
          headers: { 'X-Upstream-Key': 'operator' },
        },
        osmdown: { kind: 'nominatim', url: `http://127.0.0.1:${down}/` },
        bulk: { kind: 'http', url: `${bigUrl}/` },
        google: { kind: 'http', url: `${api.url}/`, query: { key: 'OPERATOR-UPSTREAM-KEY' } },
      },
      hosts: [
        {
          name: 'nominatim.localhost',
          adapter: 'nominatim',
          backend: 'osm',
          passthrough: [
            { path: '/search', methods: ['GET'], cost: 1 },
            { path: '/status', methods: ['GET'], cost: 0 },
            { path: '/v1/*', methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], cost: 2 },
          ],
        },
        {
          name: 'down.localhost',
          adapter: 'nominatim',
          backend: 'osmdown',
          passthrough: [{ path: '/search' }],
        },
        {
          name: 'big.localhost',
          adapter: 'native',
          backend: 'bulk',
          passthrough: [{ path: '/files/*', cost: 1 }],
        },
        {
          name: 'maps.localhost',
          adapter: 'google',
          backend: 'google',
          passthrough: [{ path: '/maps/api/*' }],
        },
      ],
    },
  });
  const k = await h.key((await h.account({ balance: 1_000_000 })).id);
  key = k.key;
  keyId = k.record.id;
}, 30_000);

afterAll(async () => {
  await nom.close();
  await api.close();
  await new Promise<void>((resolve) => big.close(() => resolve()));
});

async function counted(id = keyId): Promise<number> {
  const u = (await h.store.usage([`key:${id}`], '2026-11-22', '2026-11-22'))[0];
  return (u?.free ?? 0) + (u?.billed ?? 0);
}

const on = (
  host: string,
  path: string,
  o: { method?: string; headers?: Record<string, string>; body?: string } = {},
) => call(h.mainUrl, path, { ...o, headers: { host, ...o.headers } });

/** A request whose path is sent byte for byte (a URL object would resolve "..", "%2e%2e" and "//" first). */
function raw(host: string, path: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const u = new URL(h.mainUrl);
    const req = http.request({ host: u.hostname, port: u.port, path, headers: { host } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeEach(() => {
  nom.received.length = 0;
  nom.reply(byPath);
});

test('a passthrough GET is forwarded under the prefix, credentials and cookies stripped, counted once', async () => {
  const before = await counted();
  // The key as a bearer token, and again in a parameter whose name differs only in case (stripped as well).
  const a = await on('nominatim.localhost', `/search?q=London&format=json&KEY=${key}&limit=1`, {
    headers: { cookie: 'sid=client', 'accept-language': 'en', authorization: `Bearer ${key}` },
  });
  expect([a.status, a.text]).toEqual([200, JSON.stringify(SEARCH)]);
  expect(a.headers['access-control-allow-origin']).toBe('*');
  expect(await counted()).toBe(before + 1);
  const got = nom.received[0] as Received;
  expect(got.url).toBe('/nominatim/search?q=London&format=json&limit=1');
  expect(got.headers['x-upstream-key']).toBe('operator');
  expect(got.headers['accept-language']).toBe('en');
  for (const h of ['cookie', 'authorization', 'x-api-key', 'x-goog-api-key', 'x-forwarded-for'])
    expect(got.headers[h]).toBeUndefined();
  expect(JSON.stringify(got)).not.toContain(key);
});

test('a key in a header identifies the caller and never reaches the backend', async () => {
  const before = await counted();
  const a = await on('nominatim.localhost', '/search?q=London', { headers: { 'x-api-key': key } });
  expect(a.status).toBe(200);
  expect(await counted()).toBe(before + 1);
  expect(JSON.stringify(nom.received)).not.toContain(key);
});

test('cost 0 (/status) is answered and not counted', async () => {
  const before = await counted();
  const a = await on('nominatim.localhost', `/status?format=json&key=${key}`);
  expect(a.status).toBe(200);
  expect(a.json).toEqual(NOMINATIM_STATUS);
  expect(await counted()).toBe(before);
});

test('a form POST on a prefix route: the form credential is stripped from the body, counted `cost` (2) times', async () => {
  const before = await counted();
  const a = await on('nominatim.localhost', '/v1/lookup', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `osm_ids=N107775&key=${key}&format=json`,
  });
  expect(a.status).toBe(200);
  expect(a.json).toEqual({ ok: true, body: 'osm_ids=N107775&format=json' });
  expect(await counted()).toBe(before + 2);
});

test.each(['PUT', 'PATCH', 'DELETE'])(
  'a form %s: the key in the body identifies the caller and is stripped, with every other credential parameter',
  async (method) => {
    const before = await counted();
    const body = `osm_ids=N107775&key=${key}&format=json&KEY=${key}`;
    const a = await on('nominatim.localhost', '/v1/lookup', {
      method,
      // Node's client frames a DELETE body only with an explicit length.
      headers: {
        'content-type': 'application/x-www-form-urlencoded; charset=UTF-8',
        'content-length': String(body.length),
      },
      body,
    });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ ok: true, body: 'osm_ids=N107775&format=json' });
    expect(nom.received[0]?.method).toBe(method);
    expect(JSON.stringify(nom.received)).not.toContain(key);
    expect(await counted()).toBe(before + 2);
  },
);

test("refusals are those of the translated endpoints, in the host's shape, and change nothing", async () => {
  const bad = await on('nominatim.localhost', `/search?q=x&key=gk_${'1'.repeat(43)}`);
  expect(bad.status).toBe(401);
  expect(bad.json).toEqual({ error: expect.stringMatching(/key/i) });
  // A key without balance: its free allowance (6 a day) runs out, then a cost-2 request is refused 402 no_credits as
  // on the translated endpoints: nothing counted, the backend never called.
  const k = await h.key((await h.account({ balance: 0 })).id);
  let refused = await on('nominatim.localhost', `/v1/x?key=${k.key}`);
  for (let i = 0; i < 5 && refused.status === 200; i++)
    refused = await on('nominatim.localhost', `/v1/x?key=${k.key}`);
  expect(refused.status).toBe(402);
  expect(refused.json).toEqual({ error: expect.any(String) });
  const used = await counted(k.record.id);
  expect(used).toBeLessThanOrEqual(6);
  expect(used % 2).toBe(0);
  nom.received.length = 0;
  const again = await on('nominatim.localhost', `/v1/x?key=${k.key}`);
  expect(again.status).toBe(402);
  expect(await counted(k.record.id)).toBe(used);
  expect(nom.received).toEqual([]);
});

test('D11: a 5xx is passed on and released; a timeout is 504, a refused connection 502, both released', async () => {
  let before = await counted();
  nom.reply({ status: 503, body: { error: 'overloaded' } });
  const a = await on('nominatim.localhost', `/search?q=x&key=${key}`);
  expect(a.status).toBe(503);
  expect(a.json).toEqual({ error: 'overloaded' });
  expect(await counted()).toBe(before);
  nom.reply({ delayMs: 1500, status: 200, body: SEARCH });
  const slow = await on('nominatim.localhost', `/search?q=x&key=${key}&format=json`);
  expect(slow.status).toBe(504);
  expect(slow.json).toEqual({ error: { code: 504, message: expect.any(String) } });
  expect(await counted()).toBe(before);
  before = await counted();
  const down = await on('down.localhost', `/search?q=x&key=${key}`);
  expect(down.status).toBe(502);
  expect(await counted()).toBe(before);
});

test.each([
  '/search/../status',
  '/%2e%2e/search',
  '/search/%2E%2E/x',
  '/search%2fx',
  '/search%5Cx',
  '//search',
  '/v1/./x',
  '/v1/a%00b',
  '/v1/..;/admin',
  '/v1/.;/admin',
  '/v1/%2e%2e;/admin',
  '/v1/..%3b/admin',
])('the unsafe path %s is refused 400 before anything else', async (path) => {
  const before = await counted();
  const a = await raw('nominatim.localhost', `${path}?key=${key}`);
  expect(a.status).toBe(400);
  expect(a.json).toEqual({ error: { code: 400, message: expect.stringContaining('path') } });
  expect(nom.received).toEqual([]);
  expect(await counted()).toBe(before);
});

test("a method the route does not list is 405 with Allow; the adapter's own endpoints still answer", async () => {
  const a = await on('nominatim.localhost', `/search?key=${key}`, { method: 'POST', body: '' });
  expect(a.status).toBe(405);
  expect(a.headers['allow']).toBe('GET, OPTIONS');
  expect(nom.received).toEqual([]);
});

test('an http backend in front of a commercial API: the client key out, the operator key in', async () => {
  api.received.length = 0;
  const a = await on('maps.localhost', `/maps/api/geocode/json?address=London&key=${key}`);
  expect(a.status).toBe(200);
  expect(api.received[0]?.url).toBe('/maps/api/geocode/json?address=London&key=OPERATOR-UPSTREAM-KEY');
});

test('a 10 MB answer streams through: the gateway holds no more than socket buffers; upstream cookies dropped', async () => {
  const before = await counted();
  const result = await new Promise<{
    status: number;
    bytes: number;
    cookie: unknown;
    stalled: number;
    later: number;
  }>((resolve, reject) => {
    const u = new URL(`/files/map.bin?key=${key}`, h.mainUrl);
    const req = http.get(u, { headers: { host: 'big.localhost' } }, (res) => {
      let bytes = 0;
      let stalled = 0;
      let later = 0;
      res.once('data', () => {
        // The client stops reading: a streaming gateway stops reading the backend too (backpressure), so the
        // backend's writes stall far below 10 MB; a buffering gateway would let it write everything.
        // Wait until the backend's count has settled (unchanged over 3 polls 100 ms apart: on a loaded machine the
        // socket buffers take a while to fill), then check that it stays there.
        res.pause();
        let seen = -1;
        let same = 0;
        const poll = setInterval(() => {
          same = bigSent === seen ? same + 1 : 0;
          seen = bigSent;
          if (same < 3) return;
          clearInterval(poll);
          stalled = bigSent;
          setTimeout(() => {
            later = bigSent;
            res.resume();
          }, 300);
        }, 100);
      });
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, bytes, cookie: res.headers['set-cookie'], stalled, later }),
      );
    });
    req.on('error', reject);
  });
  expect(result.status).toBe(200);
  expect(result.bytes).toBe(BIG);
  expect(result.cookie).toBeUndefined();
  expect(result.stalled).toBeLessThan(BIG);
  expect(result.later).toBe(result.stalled);
  expect(await counted()).toBe(before + 1);
});

test('a host on an http backend serves only its routes: its translated endpoints answer not_found, uncounted', async () => {
  const before = await counted();
  const a = await on('big.localhost', `/v1/reverse?lat=1&lon=2&key=${key}`);
  expect(a.status).toBe(404);
  expect(a.json.code).toBe('not_found');
  expect(await counted()).toBe(before);
});

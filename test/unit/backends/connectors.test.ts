/**
 * The connectors (D25) on answers recorded from each project's own documentation (test/fixtures/connectors/*: each
 * fixture names its source): the request each builds, and each answer read as a record, "no result" or unreadable.
 */
import type { BackendCall } from '../../../adapters/types';
import type { ReverseRecord } from '../../../backend/records';
import { CONNECTORS } from '../../../gateway/backends';
import type { Reading } from '../../../gateway/backends/types';
import { GEOGATE_NOTHING, GEOGATE_RECORD } from '../../fixtures/connectors/geogate';
import {
  NOMINATIM_BAD_PARAMETER,
  NOMINATIM_CITY,
  NOMINATIM_HOUSE,
  NOMINATIM_NOTHING,
  NOMINATIM_ROAD,
  NOMINATIM_STATUS,
} from '../../fixtures/connectors/nominatim';
import { PELIAS_ADDRESS, PELIAS_BAD_PARAMETER, PELIAS_NOTHING } from '../../fixtures/connectors/pelias';
import { PHOTON_CITY, PHOTON_HOUSE, PHOTON_NOTHING } from '../../fixtures/connectors/photon';

const reverse = (q: { lat: number; lon: number }): BackendCall => ({ kind: 'reverse', ...q });
const body = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const recordOf = (r: Reading): ReverseRecord => {
  if (r.kind !== 'record') throw new Error(`not a record: ${JSON.stringify(r)}`);
  return r.record as ReverseRecord;
};

describe('requests built by each connector', () => {
  const call: BackendCall = { kind: 'reverse', lat: 48.8584, lon: 2.2945 };
  test.each([
    ['geogate', {}, '/reverse?lat=48.8584&lon=2.2945'],
    ['nominatim', {}, '/reverse?format=jsonv2&lat=48.8584&lon=2.2945&addressdetails=1'],
    [
      'nominatim',
      { zoom: 10, language: 'de,en;q=0.5' },
      '/reverse?format=jsonv2&lat=48.8584&lon=2.2945&addressdetails=1&zoom=10&accept-language=de%2Cen%3Bq%3D0.5',
    ],
    ['photon', {}, '/reverse?lat=48.8584&lon=2.2945&limit=1'],
    ['photon', { language: 'fr-CH, fr;q=0.9' }, '/reverse?lat=48.8584&lon=2.2945&limit=1&lang=fr'],
    ['pelias', {}, '/v1/reverse?point.lat=48.8584&point.lon=2.2945&size=1'],
    ['pelias', { language: 'en-US' }, '/v1/reverse?point.lat=48.8584&point.lon=2.2945&size=1&lang=en-US'],
  ] as const)('%s %j → %s', (kind, hints, path) => {
    expect(CONNECTORS[kind].request(call, hints)).toBe(path);
  });
  test('geogate IP lookups; no other kind answers them; http translates nothing', () => {
    expect(CONNECTORS.geogate.request({ kind: 'ipv4', ip: '8.8.8.8' }, {})).toBe('/ipv4?ip=8.8.8.8');
    expect(
      Object.values(CONNECTORS)
        .filter((c) => c.ip)
        .map((c) => c.kind),
    ).toEqual(['geogate']);
    expect(CONNECTORS.http.reverse).toBe(false);
  });
  test('a tiny coordinate is sent without exponent notation', () => {
    expect(CONNECTORS.nominatim.request({ kind: 'reverse', lat: 1e-7, lon: -2e-7 }, {})).toBe(
      '/reverse?format=jsonv2&lat=0.0000001&lon=-0.0000002&addressdetails=1',
    );
  });
});

describe('answers read as records (street level where the backend has it)', () => {
  test.each([
    [
      'nominatim: a house (Reverse.md, Bologna)',
      'nominatim',
      NOMINATIM_HOUSE,
      {
        countryCode: 'IT',
        country: 'Italy',
        region: 'Emilia-Romagna',
        county: 'BO',
        locality: 'Bologna',
        suburb: 'Saragozza-Porto',
        street: 'Via Guglielmo Marconi',
        houseNumber: '71',
        postcode: '40122',
        precision: 'address',
        displayName: '71, Via Guglielmo Marconi, Saragozza-Porto, Bologna, BO, Emilia-Romagna, 40122, Italy',
        lat: 44.5015307,
        lon: 11.3398676,
        attribution: 'Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright',
        licence: 'ODbL-1.0',
      },
    ],
    [
      'nominatim: a road (Reverse.md jsonv2 example)',
      'nominatim',
      NOMINATIM_ROAD,
      {
        countryCode: 'AR',
        region: 'Buenos Aires',
        county: 'Partido de Malvinas Argentinas',
        locality: 'El Triángulo',
        street: 'Autopista Pedro Eugenio Aramburu',
        houseNumber: null,
        postcode: '1.619',
        precision: 'street',
      },
    ],
    [
      'nominatim: a city with an ISO 3166-2 code (Output.md)',
      'nominatim',
      NOMINATIM_CITY,
      {
        countryCode: 'GB',
        region: 'England',
        regionCode: 'ENG',
        county: 'Greater London',
        locality: 'London',
        street: null,
        precision: 'locality',
      },
    ],
    [
      'photon: a house (README, the Olympic Stadium)',
      'photon',
      PHOTON_HOUSE,
      {
        countryCode: 'DE',
        country: 'Germany',
        region: 'Berlin',
        street: 'Olympischer Platz',
        houseNumber: '3',
        postcode: '14053',
        precision: 'address',
        displayName: 'Berlin Olympic Stadium, 3 Olympischer Platz, 14053, Berlin, Germany',
        lat: 52.51467945,
        lon: 13.239514674078611,
        licence: 'ODbL-1.0',
      },
    ],
    [
      'photon: a city (README, Berlin)',
      'photon',
      PHOTON_CITY,
      {
        countryCode: 'DE',
        locality: 'Berlin',
        street: null,
        houseNumber: null,
        precision: 'locality',
        displayName: 'Berlin, Germany',
      },
    ],
    [
      'pelias: an address (response.md)',
      'pelias',
      PELIAS_ADDRESS,
      {
        countryCode: 'US',
        country: 'United States',
        region: 'New York',
        regionCode: 'NY',
        county: 'New York County',
        locality: 'New York',
        suburb: 'Flatiron District',
        street: 'West 26th Street',
        houseNumber: '30',
        postcode: '10010',
        distanceKm: 0.012,
        precision: 'address',
        displayName: '30 West 26th Street, Manhattan, NY',
        attribution: 'https://pelias.example/attribution',
      },
    ],
  ] as const)('%s', (_name, kind, fixture, expected) => {
    const r = recordOf(CONNECTORS[kind].read(reverse(fixture.query), 200, body(fixture.body)));
    expect(r).toMatchObject(expected);
    expect(r.query).toEqual(fixture.query);
    expect(r.distanceKm).toEqual(expect.any(Number));
    expect(r.timezone).toBeNull();
  });

  test('geogate: its own record, unchanged and with no street-level field', () => {
    const r = CONNECTORS.geogate.read(reverse(GEOGATE_RECORD.query), 200, body(GEOGATE_RECORD));
    expect(r).toEqual({ kind: 'record', record: GEOGATE_RECORD });
    expect(recordOf(r).street).toBeUndefined();
  });

  test('the distance is computed from the query to the result when the backend gives none', () => {
    const r = recordOf(
      CONNECTORS.nominatim.read(reverse(NOMINATIM_ROAD.query), 200, body(NOMINATIM_ROAD.body)),
    );
    expect(r.distanceKm).toBe(0.211);
  });
});

describe('"no result", unreadable answers and failures', () => {
  const call = reverse({ lat: 0, lon: -30 });
  const junk = [
    ['not JSON', '<html>502 Bad Gateway</html>'],
    ['a JSON array', '[]'],
    ['an empty object', '{}'],
    ['truncated JSON', '{"features": ['],
  ] as const;
  test.each([
    ['geogate', 404, GEOGATE_NOTHING, 'no_result'],
    ['nominatim', 200, NOMINATIM_NOTHING, 'no_result'],
    ['photon', 200, PHOTON_NOTHING, 'no_result'],
    ['pelias', 200, PELIAS_NOTHING, 'no_result'],
    ['nominatim', 400, NOMINATIM_BAD_PARAMETER, 'rejected'],
    ['pelias', 400, PELIAS_BAD_PARAMETER, 'rejected'],
    ['nominatim', 200, NOMINATIM_BAD_PARAMETER, 'unreadable'],
    ['nominatim', 200, { lat: 'x', lon: '1', display_name: 'x' }, 'unreadable'],
    [
      'photon',
      200,
      { type: 'FeatureCollection', features: [{ properties: {}, geometry: { coordinates: [] } }] },
      'unreadable',
    ],
    ['pelias', 200, { type: 'FeatureCollection', features: [{ type: 'Feature' }] }, 'unreadable'],
    ['geogate', 200, { query: { lat: 0 } }, 'unreadable'],
    ['geogate', 500, {}, 'failed'],
    ['nominatim', 503, {}, 'failed'],
    ['photon', 500, 'Internal error', 'failed'],
    ['pelias', 502, {}, 'failed'],
  ] as const)('%s %i %j → %s', (kind, status, answer, expected) => {
    expect(CONNECTORS[kind].read(call, status, body(answer)).kind).toBe(expected);
  });
  test.each(['geogate', 'nominatim', 'photon', 'pelias'] as const)(
    '%s: junk 200 answers are unreadable',
    (kind) => {
      for (const [, text] of junk)
        expect(CONNECTORS[kind].read(call, 200, body(text)).kind).toBe('unreadable');
    },
  );
});

describe('readiness calls (D27)', () => {
  test('each kind has its cheap call and reads its answer', () => {
    expect(CONNECTORS.nominatim.health).toBe('/status?format=json');
    expect(CONNECTORS.nominatim.healthy(200, body(NOMINATIM_STATUS))).toBe(true);
    expect(
      CONNECTORS.nominatim.healthy(500, body({ status: 700, message: 'Database connection failed' })),
    ).toBe(false);
    expect(CONNECTORS.nominatim.healthy(200, body({ status: 700 }))).toBe(false);
    expect(CONNECTORS.photon.health).toBe('/reverse?lat=0&lon=0&limit=1');
    expect(CONNECTORS.pelias.health).toBe('/v1/reverse?point.lat=0&point.lon=0&size=1');
    expect(CONNECTORS.geogate.health).toBe('/healthz');
    expect(CONNECTORS.http.healthy(404, body(''))).toBe(true);
    expect(CONNECTORS.http.healthy(503, body(''))).toBe(false);
  });
});

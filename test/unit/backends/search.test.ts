/**
 * Forward lookups through the connectors (issue 11 item 1): the request each kind builds from the canonical search
 * call, and each answer (test/fixtures/connectors/search.ts names the source of each) read as a list of records.
 */
import type { SearchCall, SearchResults } from '../../../adapters/types';
import { CONNECTORS } from '../../../gateway/backends';
import type { Reading } from '../../../gateway/backends/types';
import { NOMINATIM_BAD_PARAMETER } from '../../fixtures/connectors/nominatim';
import { PELIAS_BAD_PARAMETER, PELIAS_NOTHING } from '../../fixtures/connectors/pelias';
import { PHOTON_NOTHING } from '../../fixtures/connectors/photon';
import {
  GEOGATE_SEARCH,
  GEOGATE_SEARCH_NOTHING,
  NOMINATIM_SEARCH,
  PELIAS_SEARCH,
  PHOTON_SEARCH,
} from '../../fixtures/connectors/search';

const call = (over: Partial<SearchCall> = {}): SearchCall => ({
  kind: 'search',
  q: 'Berlin Mitte',
  parts: null,
  limit: 5,
  countries: null,
  language: null,
  focus: null,
  bounds: null,
  ...over,
});
const body = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const resultsOf = (r: Reading): SearchResults => {
  if (r.kind !== 'results') throw new Error(`not results: ${JSON.stringify(r)}`);
  return r.answer;
};
const full = call({
  countries: ['DE', 'AT'],
  language: 'de-CH,de;q=0.9',
  focus: { lat: 52.5, lon: 13.4 },
  bounds: { minLon: 13, minLat: 52, maxLon: 14, maxLat: 53, bounded: true },
});

describe('search requests built by each connector', () => {
  test.each([
    ['geogate', call(), '/search?q=Berlin%20Mitte&limit=5'],
    ['geogate', full, '/search?q=Berlin%20Mitte&limit=5&countrycodes=de%2Cat'],
    ['geogate', call({ limit: 80 }), '/search?q=Berlin%20Mitte&limit=50'],
    // Our backend matches whole place names: the text before the first comma, or the structured city.
    ['geogate', call({ q: 'Paris, France' }), '/search?q=Paris&limit=5'],
    ['geogate', call({ q: ', Paris' }), '/search?q=%2C%20Paris&limit=5'],
    [
      'geogate',
      call({ q: '1 Rue de Rivoli, Paris', parts: { street: '1 Rue de Rivoli', city: 'Paris' } }),
      '/search?q=Paris&limit=5',
    ],
    ['nominatim', call(), '/search?format=jsonv2&addressdetails=1&q=Berlin%20Mitte&limit=5'],
    [
      'nominatim',
      full,
      '/search?format=jsonv2&addressdetails=1&q=Berlin%20Mitte&limit=5&countrycodes=de%2Cat' +
        '&accept-language=de-CH%2Cde%3Bq%3D0.9&viewbox=13%2C53%2C14%2C52&bounded=1',
    ],
    [
      'nominatim',
      call({ q: 'Unter den Linden 1, Berlin', parts: { street: 'Unter den Linden 1', city: 'Berlin' } }),
      '/search?format=jsonv2&addressdetails=1&street=Unter%20den%20Linden%201&city=Berlin&limit=5',
    ],
    ['photon', call(), '/api?q=Berlin%20Mitte&limit=5'],
    ['photon', full, '/api?q=Berlin%20Mitte&limit=50&lang=de&lat=52.5&lon=13.4&bbox=13%2C52%2C14%2C53'],
    ['pelias', call(), '/v1/search?text=Berlin%20Mitte&size=5'],
    [
      'pelias',
      full,
      '/v1/search?text=Berlin%20Mitte&size=5&boundary.country=DE%2CAT&focus.point.lat=52.5&focus.point.lon=13.4' +
        '&boundary.rect.min_lon=13&boundary.rect.min_lat=52&boundary.rect.max_lon=14&boundary.rect.max_lat=53&lang=de-CH',
    ],
  ] as const)('%s %j → %s', (kind, c, path) => {
    expect(CONNECTORS[kind].request(c, {})).toBe(path);
  });

  test("the client's accept-language hint is used when the call names no language", () => {
    expect(CONNECTORS.nominatim.request(call(), { language: 'fr' })).toContain('&accept-language=fr');
    expect(CONNECTORS.photon.request(call(), { language: 'fr-CH' })).toContain('&lang=fr');
  });

  test('which kinds search: every translating kind, never http', () => {
    expect(
      Object.values(CONNECTORS)
        .filter((c) => c.search)
        .map((c) => c.kind),
    ).toEqual(['geogate', 'nominatim', 'photon', 'pelias']);
  });
});

describe('search answers read as records, best first', () => {
  test('geogate: places at city level, ranking fields dropped, relevance from the match', () => {
    const a = resultsOf(CONNECTORS.geogate.read(call(), 200, body(GEOGATE_SEARCH)));
    expect(a.results.map((r) => [r.locality, r.countryCode, r.relevance, r.bbox])).toEqual([
      ['Paris', 'FR', 1, null],
      ['La Defense', 'FR', 0.5, null],
    ]);
    const paris = a.results[0];
    expect(paris).toMatchObject({
      query: { lat: 48.85341, lon: 2.3488 },
      lat: 48.85341,
      lon: 2.3488,
      distanceKm: null,
      displayName: 'Paris, Île-de-France, France',
      timezone: 'Europe/Paris',
    });
    expect(paris).not.toHaveProperty('score');
    expect(paris).not.toHaveProperty('population');
    expect(a.attribution).toContain('GeoNames');
  });

  test('nominatim: importance as relevance, boundingbox reordered to [minLon, minLat, maxLon, maxLat]', () => {
    const a = resultsOf(CONNECTORS.nominatim.read(call({ q: 'london' }), 200, body(NOMINATIM_SEARCH)));
    expect(a.results).toHaveLength(1);
    expect(a.results[0]).toMatchObject({
      countryCode: 'GB',
      country: 'United Kingdom',
      region: 'England',
      regionCode: 'ENG',
      county: 'Greater London',
      locality: 'London',
      postcode: 'SW1A 2DU',
      displayName: 'London, Greater London, England, SW1A 2DU, United Kingdom',
      lat: 51.5073219,
      lon: -0.1276474,
      query: { lat: 51.5073219, lon: -0.1276474 },
      distanceKm: null,
      relevance: 0.9655,
      bbox: [-0.2876474, 51.3473219, 0.0323526, 51.6673219],
      precision: 'locality',
    });
  });

  test('photon: every feature in order, extent as bbox, a country filter applied to the list', () => {
    const a = resultsOf(CONNECTORS.photon.read(call({ q: 'berlin' }), 200, body(PHOTON_SEARCH)));
    expect(a.results.map((r) => [r.displayName, r.precision, r.bbox])).toEqual([
      ['Berlin, Germany', 'locality', null],
      [
        'Berlin Olympic Stadium, 3 Olympischer Platz, 14053, Berlin, Germany',
        'address',
        [13.23727, 52.5135972, 13.241757, 52.5157151],
      ],
    ]);
    const fr = resultsOf(CONNECTORS.photon.read(call({ countries: ['FR'] }), 200, body(PHOTON_SEARCH)));
    expect(fr.results).toEqual([]);
    const one = resultsOf(CONNECTORS.photon.read(call({ limit: 1 }), 200, body(PHOTON_SEARCH)));
    expect(one.results).toHaveLength(1);
  });

  test('pelias: confidence as relevance, label as display name, the attribution of the answer', () => {
    const a = resultsOf(CONNECTORS.pelias.read(call(), 200, body(PELIAS_SEARCH)));
    expect(a.results).toHaveLength(1);
    expect(a.results[0]).toMatchObject({
      countryCode: 'US',
      locality: 'New York',
      street: 'West 26th Street',
      houseNumber: '30',
      displayName: '30 West 26th Street, Manhattan, NY',
      relevance: 0.9625,
      distanceKm: null,
      precision: 'address',
    });
    expect(a.attribution).toBe('https://pelias.example/attribution');
  });

  test.each([
    ['geogate', GEOGATE_SEARCH_NOTHING],
    ['nominatim', []],
    ['photon', PHOTON_NOTHING],
    ['pelias', PELIAS_NOTHING],
  ] as const)('%s: nothing matched is an empty list (an answer, not an error)', (kind, answer) => {
    expect(resultsOf(CONNECTORS[kind].read(call(), 200, body(answer))).results).toEqual([]);
  });

  test.each([
    ['nominatim', 400, NOMINATIM_BAD_PARAMETER, 'rejected'],
    ['pelias', 400, PELIAS_BAD_PARAMETER, 'rejected'],
    ['photon', 500, 'oops', 'failed'],
    ['geogate', 200, { results: 'no' }, 'unreadable'],
    ['nominatim', 200, { place_id: 1 }, 'unreadable'],
    ['nominatim', 200, [{ lat: 'x' }], 'unreadable'],
    ['photon', 200, 'not json', 'unreadable'],
    ['pelias', 200, { features: [{ properties: {}, geometry: {} }] }, 'unreadable'],
  ] as const)('%s %i %j → %s', (kind, status, answer, reading) => {
    expect(CONNECTORS[kind].read(call(), status, body(answer)).kind).toBe(reading);
  });
});

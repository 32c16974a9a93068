/**
 * Forward lookups of the OpenCage, LocationIQ, Photon and Pelias hosts (issue 11 item 4): each provider's request read
 * into the canonical search, and each answer (recorded fixtures, read by the connectors: test/fixtures/connectors/
 * search.ts names the sources) rendered in the provider's list shape, best first, with its bbox and confidence fields
 * where the provider has them, and its "no result" shape.
 */
import { locationiq } from '../../../adapters/locationiq';
import { opencage } from '../../../adapters/opencage';
import { pelias } from '../../../adapters/pelias';
import { photon } from '../../../adapters/photon';
import type { Adapter, SearchResults } from '../../../adapters/types';
import { CONNECTORS } from '../../../gateway/backends';
import { GEOGATE_SEARCH, NOMINATIM_SEARCH, PELIAS_SEARCH } from '../../fixtures/connectors/search';

const req = (path: string, query: string) => ({ method: 'GET', path, query, headers: {} });
const answers = (kind: 'geogate' | 'nominatim' | 'pelias', body: unknown): SearchResults => {
  const r = CONNECTORS[kind].read(
    {
      kind: 'search',
      q: 'x',
      parts: null,
      limit: 10,
      countries: null,
      language: null,
      focus: null,
      bounds: null,
    },
    200,
    Buffer.from(JSON.stringify(body)),
  );
  if (r.kind !== 'results') throw new Error('not results');
  return r.answer;
};
const EMPTY: SearchResults = { results: [], attribution: 'x' };
const render = (a: Adapter, path: string, query: string, answer: SearchResults) => {
  const p = a.parse(req(path, query));
  if (!p?.ok) throw new Error(JSON.stringify(p));
  const res = a.renderSearch?.(p.request.state, answer);
  if (!res) throw new Error('no renderSearch');
  return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> & unknown[] };
};

describe.each([
  [
    'opencage',
    opencage,
    '/geocode/v1/json',
    [
      ['q=Paris&key=K', { q: 'Paris', limit: 10 }],
      [
        'q=Paris&countrycode=fr&limit=2&language=fr&proximity=48.8,2.3&bounds=2,48,3,49',
        {
          countries: ['FR'],
          limit: 2,
          language: 'fr',
          focus: { lat: 48.8, lon: 2.3 },
          bounds: { minLon: 2, minLat: 48, maxLon: 3, maxLat: 49, bounded: false },
        },
      ],
      ['q=Paris&language=native', { language: null }],
    ],
    [
      ['q=Paris&limit=0', 'limit'],
      ['q=Paris&countrycode=fra', 'countrycode'],
      ['q=Paris&proximity=x', 'proximity'],
      ['q=Paris&bounds=1,2', 'bounds'],
    ],
  ],
  [
    'locationiq',
    locationiq,
    '/v1/search',
    [
      ['q=Paris&format=json&key=K', { q: 'Paris', limit: 10 }],
      ['city=Paris&country=France', { q: 'Paris, France', parts: { city: 'Paris', country: 'France' } }],
    ],
    [
      ['q=', 'q'],
      ['q=Paris&format=xml', 'format'],
    ],
  ],
  [
    'photon',
    photon,
    '/api',
    [
      ['q=berlin', { q: 'berlin', limit: 10, focus: null }],
      [
        'q=berlin&limit=3&lang=de&lat=52.5&lon=13.4&bbox=13,52,14,53',
        {
          limit: 3,
          language: 'de',
          focus: { lat: 52.5, lon: 13.4 },
          bounds: { minLon: 13, minLat: 52, maxLon: 14, maxLat: 53, bounded: false },
        },
      ],
    ],
    [
      ['q=berlin&lat=52', 'lon'],
      ['q=berlin&limit=x', 'limit'],
      ['q=berlin&bbox=1', 'bbox'],
    ],
  ],
  [
    'pelias',
    pelias,
    '/v1/search',
    [
      ['text=berlin', { q: 'berlin', limit: 10 }],
      [
        'text=berlin&size=3&boundary.country=DE&focus.point.lat=52.5&focus.point.lon=13.4&lang=de',
        { limit: 3, countries: ['DE'], focus: { lat: 52.5, lon: 13.4 }, language: 'de' },
      ],
      [
        'text=berlin&boundary.rect.min_lon=13&boundary.rect.min_lat=52&boundary.rect.max_lon=14&boundary.rect.max_lat=53',
        { bounds: { minLon: 13, minLat: 52, maxLon: 14, maxLat: 53, bounded: true } },
      ],
    ],
    [
      ['text=berlin&size=0', 'size'],
      ['text=berlin&boundary.country=DEU', 'boundary.country'],
      ['text=berlin&focus.point.lat=52', 'focus.point.lon'],
      ['text=berlin&boundary.rect.min_lon=13', 'boundary.rect.min_lon'],
    ],
  ],
] as const)('%s forward parse', (_name, adapter, path, good, bad) => {
  test.each(good.map((g) => [...g]))('%s → %j', (query, call) => {
    const p = (adapter as Adapter).parse(req(path, query));
    if (!p?.ok) throw new Error(JSON.stringify(p));
    expect(p.request.call).toMatchObject({ kind: 'search', ...call });
  });
  test.each(bad.map((b) => [...b]))('%s is refused naming %s', (query, parameter) => {
    expect((adapter as Adapter).parse(req(path, query))).toMatchObject({
      ok: false,
      code: 'invalid_parameter',
      facts: { parameter },
    });
  });
});

test('pelias structured and autocomplete are searches too', () => {
  const s = pelias.parse(req('/v1/search/structured', 'address=30 West 26th Street&locality=New York'));
  expect(s?.ok && s.request.call).toMatchObject({
    kind: 'search',
    q: '30 West 26th Street, New York',
    parts: { street: '30 West 26th Street', city: 'New York' },
  });
  const a = pelias.parse(req('/v1/autocomplete', 'text=ber'));
  expect(a?.ok && a.request.call).toMatchObject({ kind: 'search', q: 'ber' });
});

test('opencage: a point is still a reverse lookup, a text with a letter a search', () => {
  expect(opencage.parse(req('/geocode/v1/json', 'q=48.8584,2.2945'))).toMatchObject({
    ok: true,
    request: { call: { kind: 'reverse' } },
  });
});

describe('opencage forward render', () => {
  test('results best first, total_results, bounds from the extent', () => {
    const { body } = render(opencage, '/geocode/v1/json', 'q=london', answers('nominatim', NOMINATIM_SEARCH));
    expect(body['total_results']).toBe(1);
    expect((body['results'] as Record<string, unknown>[])[0]).toMatchObject({
      formatted: 'London, Greater London, England, SW1A 2DU, United Kingdom',
      geometry: { lat: 51.5073219, lng: -0.1276474 },
      bounds: {
        northeast: { lat: 51.6673219, lng: 0.0323526 },
        southwest: { lat: 51.3473219, lng: -0.2876474 },
      },
      components: { city: 'London', country_code: 'gb', _type: 'city' },
    });
    const paris = render(opencage, '/geocode/v1/json', 'q=paris', answers('geogate', GEOGATE_SEARCH)).body;
    expect((paris['results'] as { formatted: string }[]).map((r) => r.formatted)).toEqual([
      'Paris, Île-de-France, France',
      'La Defense, Hauts-de-Seine, Île-de-France, France',
    ]);
  });
  test('nothing matched: 200, results [], total_results 0', () => {
    expect(render(opencage, '/geocode/v1/json', 'q=xqzzy', EMPTY)).toMatchObject({
      status: 200,
      body: { results: [], total_results: 0, status: { code: 200, message: 'OK' } },
    });
  });
});

describe('locationiq forward render', () => {
  test("Nominatim's list (json by default), importance and boundingbox", () => {
    const { body } = render(locationiq, '/v1/search', 'q=london', answers('nominatim', NOMINATIM_SEARCH));
    expect(body[0]).toMatchObject({
      class: 'place',
      importance: 0.9655,
      boundingbox: ['51.3473219', '51.6673219', '-0.2876474', '0.0323526'],
    });
  });
  test('nothing matched: 404 {"error":"Unable to geocode"} (LocationIQ, unlike Nominatim)', () => {
    expect(render(locationiq, '/v1/search', 'q=xqzzy', EMPTY)).toEqual({
      status: 404,
      body: { error: 'Unable to geocode' },
    });
  });
});

describe('photon forward render', () => {
  test('features best first, extent [minLon, maxLat, maxLon, minLat]', () => {
    const { body } = render(photon, '/api', 'q=london', answers('nominatim', NOMINATIM_SEARCH));
    expect((body['features'] as Record<string, unknown>[])[0]).toMatchObject({
      geometry: { type: 'Point', coordinates: [-0.1276474, 51.5073219] },
      properties: {
        name: 'London',
        city: 'London',
        countrycode: 'GB',
        extent: [-0.2876474, 51.6673219, 0.0323526, 51.3473219],
      },
    });
  });
  test('nothing matched: an empty FeatureCollection', () => {
    expect(render(photon, '/api', 'q=xqzzy', EMPTY).body).toMatchObject({
      type: 'FeatureCollection',
      features: [],
    });
  });
});

describe('pelias forward render', () => {
  test('features with confidence, the address layer, the echoed query and an overall bbox', () => {
    const { body } = render(
      pelias,
      '/v1/search',
      'text=30 West 26th Street&size=5',
      answers('pelias', PELIAS_SEARCH),
    );
    expect(body['geocoding']).toMatchObject({ query: { text: '30 West 26th Street', size: 5 } });
    expect((body['features'] as Record<string, unknown>[])[0]).toMatchObject({
      properties: {
        layer: 'address',
        housenumber: '30',
        street: 'West 26th Street',
        confidence: 0.9625,
        label: '30 West 26th Street, Manhattan, NY',
      },
    });
    expect(body['bbox']).toEqual([-73.990342, 40.744243, -73.990342, 40.744243]);
  });
  test('nothing matched: an empty FeatureCollection in the envelope', () => {
    const { status, body } = render(pelias, '/v1/search', 'text=xqzzy', EMPTY);
    expect(status).toBe(200);
    expect(body).toMatchObject({ type: 'FeatureCollection', features: [] });
    expect(body).not.toHaveProperty('bbox');
  });
});

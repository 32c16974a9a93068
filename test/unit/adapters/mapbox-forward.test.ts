/**
 * The Mapbox host's forward lookups (issue 11 item 4): v5 `/geocoding/v5/mapbox.places/{text}.json` and v6
 * `/search/geocode/v6/forward?q=` read into the canonical search; answers as Mapbox FeatureCollections best first
 * (v5: `query` the text's words, `relevance`, `bbox`; v6: `properties.bbox`), an empty one when nothing matched.
 */
import { mapbox } from '../../../adapters/mapbox';
import type { SearchResults } from '../../../adapters/types';
import { CONNECTORS } from '../../../gateway/backends';
import { GEOGATE_SEARCH, NOMINATIM_SEARCH, PELIAS_SEARCH } from '../../fixtures/connectors/search';

const V5 = '/geocoding/v5/mapbox.places';
const V6 = '/search/geocode/v6/forward';
const req = (path: string, query = '') => ({ method: 'GET', path, query, headers: {} });
const resultsFrom = (kind: 'geogate' | 'nominatim' | 'pelias', body: unknown): SearchResults => {
  const p = mapbox.parse(req(`${V5}/x.json`));
  if (!p?.ok) throw new Error('unparsed');
  const r = CONNECTORS[kind].read(p.request.call, 200, Buffer.from(JSON.stringify(body)));
  if (r.kind !== 'results') throw new Error('not results');
  return r.answer;
};
const render = (path: string, query: string, a: SearchResults) => {
  const p = mapbox.parse(req(path, query));
  if (!p?.ok) throw new Error('unparsed');
  const res = mapbox.renderSearch?.(p.request.state, a);
  if (!res) throw new Error('no renderSearch');
  return JSON.parse(res.body) as { query?: string[]; features: Record<string, unknown>[] };
};

describe('mapbox forward parse', () => {
  test.each([
    [`${V5}/Paris.json`, '', { q: 'Paris', limit: 5, countries: null, focus: null }],
    [
      `${V5}/Rue de Rivoli Paris.json`,
      'limit=3&country=fr,be&language=fr',
      { q: 'Rue de Rivoli Paris', limit: 3, countries: ['FR', 'BE'], language: 'fr' },
    ],
    [
      `${V5}/Paris.json`,
      'proximity=2.35,48.85&bbox=2,48,3,49',
      {
        focus: { lat: 48.85, lon: 2.35 },
        bounds: { minLon: 2, minLat: 48, maxLon: 3, maxLat: 49, bounded: false },
      },
    ],
    [`${V5}/Paris.json`, 'limit=50', { limit: 10 }],
    [`${V5}/Paris.json`, 'proximity=ip', { focus: null }],
    [V6, 'q=Paris&limit=2', { q: 'Paris', limit: 2 }],
  ])('%s?%s → %j', (path, query, call) => {
    const p = mapbox.parse(req(path, query));
    if (!p?.ok) throw new Error(JSON.stringify(p));
    expect(p.request.call).toMatchObject({ kind: 'search', ...call });
  });

  test.each([
    [`${V5}/!!.json`, '', 'query'],
    [`${V5}/Paris.json`, 'limit=0', 'limit'],
    [`${V5}/Paris.json`, 'country=france', 'country'],
    [`${V5}/Paris.json`, 'proximity=200,1', 'proximity'],
    [`${V5}/Paris.json`, 'bbox=1,2,3', 'bbox'],
    [V6, '', 'q'],
    [V6, 'q=a&q=b', 'q'],
  ])('%s?%s is refused naming %s', (path, query, parameter) => {
    expect(mapbox.parse(req(path, query))).toMatchObject({
      ok: false,
      code: 'invalid_parameter',
      facts: { parameter },
    });
  });
});

describe('mapbox forward render', () => {
  test('v5: places best first, the query words, relevance', () => {
    const body = render(`${V5}/Paris France.json`, '', resultsFrom('geogate', GEOGATE_SEARCH));
    expect(body.query).toEqual(['paris', 'france']);
    expect(body.features.map((f) => [f['place_name'], f['place_type'], f['relevance']])).toEqual([
      ['Paris, Île-de-France, France', ['place'], 1],
      ['La Defense, Hauts-de-Seine, Île-de-France, France', ['place'], 0.5],
    ]);
  });

  test('v5: an extent becomes bbox; an address result is an address feature', () => {
    const london = render(`${V5}/london.json`, '', resultsFrom('nominatim', NOMINATIM_SEARCH));
    expect(london.features[0]).toMatchObject({
      bbox: [-0.2876474, 51.3473219, 0.0323526, 51.6673219],
      relevance: 0.9655,
    });
    const address = render(`${V5}/30 West 26th.json`, '', resultsFrom('pelias', PELIAS_SEARCH));
    expect(address.features[0]).toMatchObject({
      place_type: ['address'],
      text: 'West 26th Street',
      address: '30',
    });
  });

  test('v6: features with feature_type and properties.bbox, no query echo', () => {
    const body = render(V6, 'q=london', resultsFrom('nominatim', NOMINATIM_SEARCH));
    expect(body.query).toBeUndefined();
    expect(body.features[0]).toMatchObject({
      type: 'Feature',
      properties: {
        feature_type: 'place',
        name: 'London',
        bbox: [-0.2876474, 51.3473219, 0.0323526, 51.6673219],
      },
    });
  });

  test.each([`${V5}/xqzzy.json`, V6])('nothing matched at %s is an empty FeatureCollection', (path) => {
    expect(render(path, 'q=xqzzy', { results: [], attribution: 'x' }).features).toEqual([]);
  });
});

/**
 * The Nominatim host's `/search` (issue 11 item 4): the request read into the canonical search, and the answer
 * rendered in Nominatim's list shape (Output.md: place_id, licence, lat/lon as strings, importance, boundingbox
 * [min lat, max lat, min lon, max lon], address with addressdetails=1), best first; nothing matched is `[]`.
 */
import { nominatim } from '../../../adapters/nominatim';
import type { SearchResult, SearchResults } from '../../../adapters/types';
import { CONNECTORS } from '../../../gateway/backends';
import { GEOGATE_SEARCH, NOMINATIM_SEARCH } from '../../fixtures/connectors/search';

const req = (query: string, path = '/search') => ({ method: 'GET', path, query, headers: {} });
const resultsFrom = (kind: 'geogate' | 'nominatim', body: unknown): SearchResults => {
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

describe('nominatim /search parse', () => {
  test.each([
    ['q=Paris', { q: 'Paris', limit: 10, countries: null, language: null, parts: null, bounds: null }],
    [
      'q=Paris&limit=3&countrycodes=fr,BE&accept-language=fr',
      { q: 'Paris', limit: 3, countries: ['FR', 'BE'], language: 'fr' },
    ],
    ['q=Paris&limit=100', { limit: 40 }],
    [
      'q=Paris&viewbox=2.2,48.9,2.4,48.8&bounded=1',
      { bounds: { minLon: 2.2, minLat: 48.8, maxLon: 2.4, maxLat: 48.9, bounded: true } },
    ],
    [
      'street=1+Rue+de+Rivoli&city=Paris&postalcode=75001',
      {
        q: '1 Rue de Rivoli, Paris, 75001',
        parts: { street: '1 Rue de Rivoli', city: 'Paris', postcode: '75001' },
      },
    ],
  ])('%s → %j', (query, expected) => {
    const p = nominatim.parse(req(query));
    if (!p || !p.ok) throw new Error(JSON.stringify(p));
    expect(p.request.call).toMatchObject({ kind: 'search', ...expected });
  });

  test('the .php path and the format are read; the default format is jsonv2', () => {
    const p = nominatim.parse(req('q=Paris&format=json', '/search.php'));
    expect(p?.ok && p.request.state).toEqual({ search: true, format: 'json', addressdetails: false });
    const d = nominatim.parse(req('q=Paris'));
    expect(d?.ok && d.request.state).toMatchObject({ format: 'jsonv2' });
  });

  test.each([
    ['', 'q'],
    ['q=%20', 'q'],
    ['q=Paris&q=Lyon', 'q'],
    ['q=Paris&city=Lyon', 'q'],
    ['q=Paris&format=xml', 'format'],
    ['q=Paris&limit=0', 'limit'],
    ['q=Paris&countrycodes=fra', 'countrycodes'],
    ['q=Paris&viewbox=1,2,3', 'viewbox'],
    ['q=Paris&bounded=yes', 'bounded'],
    ['q=Paris&addressdetails=2', 'addressdetails'],
  ])('%s is refused as invalid_parameter naming %s', (query, parameter) => {
    expect(nominatim.parse(req(query))).toMatchObject({
      ok: false,
      code: 'invalid_parameter',
      facts: { parameter },
    });
  });
});

describe('nominatim /search render', () => {
  const render = (query: string, a: SearchResults) => {
    const p = nominatim.parse(req(query));
    if (!p || !p.ok) throw new Error('unparsed');
    const res = nominatim.renderSearch?.(p.request.state, a);
    if (!res) throw new Error('no renderSearch');
    return { status: res.status, body: JSON.parse(res.body) as unknown };
  };

  test('a Nominatim backend answer renders back as Nominatim wrote it (Output.md London)', () => {
    const { status, body } = render(
      'q=london&format=json&addressdetails=1',
      resultsFrom('nominatim', NOMINATIM_SEARCH),
    );
    expect(status).toBe(200);
    expect(body).toEqual([
      expect.objectContaining({
        licence: 'Data © OpenStreetMap contributors, ODbL 1.0. https://osm.org/copyright',
        lat: '51.5073219',
        lon: '-0.1276474',
        class: 'place',
        type: 'city',
        importance: 0.9655,
        display_name: 'London, Greater London, England, SW1A 2DU, United Kingdom',
        boundingbox: ['51.3473219', '51.6673219', '-0.2876474', '0.0323526'],
        address: {
          city: 'London',
          county: 'Greater London',
          state: 'England',
          postcode: 'SW1A 2DU',
          country: 'United Kingdom',
          country_code: 'gb',
        },
      }),
    ]);
  });

  test('our backend places, best first, jsonv2 with category and place_rank; no address without addressdetails', () => {
    const { body } = render('q=paris', resultsFrom('geogate', GEOGATE_SEARCH));
    const list = body as Record<string, unknown>[];
    expect(list.map((p) => [p['display_name'], p['category'], p['place_rank'], p['importance']])).toEqual([
      ['Paris, Île-de-France, France', 'place', 16, 1],
      ['La Defense, Hauts-de-Seine, Île-de-France, France', 'place', 16, 0.5],
    ]);
    expect(list[0]).not.toHaveProperty('address');
    expect(list[0]?.['boundingbox']).toEqual(['48.8534100', '48.8534100', '2.3488000', '2.3488000']);
  });

  test('geojson: a FeatureCollection with bbox [w, s, e, n] per feature', () => {
    const { body } = render('q=london&format=geojson', resultsFrom('nominatim', NOMINATIM_SEARCH));
    expect(body).toMatchObject({
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          bbox: [-0.2876474, 51.3473219, 0.0323526, 51.6673219],
          geometry: { type: 'Point', coordinates: [-0.1276474, 51.5073219] },
          properties: { display_name: 'London, Greater London, England, SW1A 2DU, United Kingdom' },
        },
      ],
    });
  });

  test.each(['json', 'jsonv2'])('nothing matched in %s is [] (200)', (format) => {
    const empty: SearchResults = { results: [] as SearchResult[], attribution: 'x' };
    expect(render(`q=xqzzy&format=${format}`, empty)).toEqual({ status: 200, body: [] });
  });

  test("search_unavailable is Nominatim's error object with 501", () => {
    const res = nominatim.renderError(null, 'search_unavailable', 'Search is not available', {});
    expect(res.status).toBe(501);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 501, message: 'Search is not available' } });
  });
});

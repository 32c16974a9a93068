/**
 * The Google host's forward lookups (issue 11 item 4): `address=` / `components=` read into the canonical search, and
 * the answer rendered as Google's results list (address_components, formatted_address, geometry with viewport and
 * bounds from the extent), ZERO_RESULTS when nothing matched. A point written as the address is a reverse lookup,
 * as Google answers it.
 */
import { google } from '../../../adapters/google';
import type { SearchResults } from '../../../adapters/types';
import { CONNECTORS } from '../../../gateway/backends';
import { GEOGATE_SEARCH, NOMINATIM_SEARCH } from '../../fixtures/connectors/search';

const PATH = '/maps/api/geocode/json';
const req = (query: string, path = PATH) => ({ method: 'GET', path, query, headers: {} });
const resultsFrom = (kind: 'geogate' | 'nominatim', body: unknown): SearchResults => {
  const call = google.parse(req('address=x'));
  if (!call?.ok) throw new Error('unparsed');
  const r = CONNECTORS[kind].read(call.request.call, 200, Buffer.from(JSON.stringify(body)));
  if (r.kind !== 'results') throw new Error('not results');
  return r.answer;
};

describe('google forward parse', () => {
  test.each([
    ['address=Paris&key=K', { kind: 'search', q: 'Paris', limit: 5, countries: null, language: null }],
    [
      'address=Paris&components=country:FR&language=fr',
      { kind: 'search', q: 'Paris', countries: ['FR'], language: 'fr' },
    ],
    [
      'components=locality:Paris|country:fr|postal_code:75001',
      { kind: 'search', q: 'Paris, 75001', countries: ['FR'] },
    ],
    [
      'address=Paris&bounds=48.8,2.2|48.9,2.4',
      { kind: 'search', bounds: { minLat: 48.8, minLon: 2.2, maxLat: 48.9, maxLon: 2.4, bounded: false } },
    ],
    ['address=48.8584,2.2945', { kind: 'reverse', lat: 48.8584, lon: 2.2945 }],
  ])('%s → %j', (query, call) => {
    const p = google.parse(req(query));
    if (!p?.ok) throw new Error(JSON.stringify(p));
    expect(p.request.call).toMatchObject(call);
  });

  test.each([
    ['address=', 'address'],
    ['address=%21%21', 'address'],
    ['address=a&address=b', 'address'],
    ['address=Paris&components=planet:earth', 'components'],
    ['address=Paris&components=country:France', 'components'],
    ['address=Paris&bounds=1,2', 'bounds'],
    ['address=Paris&language=%3Cx%3E', 'language'],
  ])('%s is INVALID_REQUEST naming %s', (query, parameter) => {
    expect(google.parse(req(query))).toMatchObject({
      ok: false,
      code: 'invalid_parameter',
      facts: { parameter },
    });
  });

  test('the xml output keeps its state for forward refusals', () => {
    expect(google.parse(req('address=', '/maps/api/geocode/xml'))).toMatchObject({
      ok: false,
      state: { output: 'xml' },
    });
  });
});

describe('google forward render', () => {
  const render = (a: SearchResults) => {
    const p = google.parse(req('address=Paris'));
    if (!p?.ok) throw new Error('unparsed');
    const res = google.renderSearch?.(p.request.state, a);
    if (!res) throw new Error('no renderSearch');
    return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
  };

  test('our backend places, best first, as Google results (locality, APPROXIMATE)', () => {
    const { status, body } = render(resultsFrom('geogate', GEOGATE_SEARCH));
    expect(status).toBe(200);
    expect(body['status']).toBe('OK');
    const results = body['results'] as Record<string, unknown>[];
    expect(results.map((r) => r['formatted_address'])).toEqual([
      'Paris, Île-de-France, France',
      'La Defense, Hauts-de-Seine, Île-de-France, France',
    ]);
    expect(results[0]).toMatchObject({
      geometry: { location: { lat: 48.85341, lng: 2.3488 }, location_type: 'APPROXIMATE' },
      types: ['locality', 'political'],
      address_components: expect.arrayContaining([
        { long_name: 'Paris', short_name: 'Paris', types: ['locality', 'political'] },
        { long_name: 'France', short_name: 'FR', types: ['country', 'political'] },
      ]) as unknown,
    });
  });

  test("an extent becomes Google's viewport and bounds", () => {
    const { body } = render(resultsFrom('nominatim', NOMINATIM_SEARCH));
    const box = {
      northeast: { lat: 51.6673219, lng: 0.0323526 },
      southwest: { lat: 51.3473219, lng: -0.2876474 },
    };
    expect((body['results'] as Record<string, unknown>[])[0]).toMatchObject({
      geometry: { bounds: box, viewport: box },
    });
  });

  test('nothing matched is ZERO_RESULTS with an empty list', () => {
    expect(render({ results: [], attribution: 'x' }).body).toEqual({
      html_attributions: ['x'],
      results: [],
      status: 'ZERO_RESULTS',
    });
  });
});

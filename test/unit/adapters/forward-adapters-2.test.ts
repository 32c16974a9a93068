/**
 * Forward lookups of the Geoapify, HERE, TomTom, Bing, positionstack and Geocodio hosts (issue 11 item 4): each
 * provider's request read into the canonical search, and answers (fixtures read by the connectors; test/fixtures/
 * connectors/search.ts names the sources) rendered in the provider's list shape, best first, with its bbox and
 * confidence fields, and its "no result" shape.
 */
import { bing } from '../../../adapters/bing';
import { geoapify } from '../../../adapters/geoapify';
import { geocodio } from '../../../adapters/geocodio';
import { here } from '../../../adapters/here';
import { positionstack } from '../../../adapters/positionstack';
import { tomtom } from '../../../adapters/tomtom';
import type { Adapter, SearchResults } from '../../../adapters/types';
import { CONNECTORS } from '../../../gateway/backends';
import { GEOGATE_SEARCH, NOMINATIM_SEARCH } from '../../fixtures/connectors/search';

const req = (path: string, query: string) => ({ method: 'GET', path, query, headers: {} });
const answers = (kind: 'geogate' | 'nominatim', body: unknown): SearchResults => {
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
const PARIS = answers('geogate', GEOGATE_SEARCH);
const LONDON = answers('nominatim', NOMINATIM_SEARCH);
const EMPTY: SearchResults = { results: [], attribution: 'x' };
type Body = Record<string, unknown>;
const render = (a: Adapter, path: string, query: string, answer: SearchResults) => {
  const p = a.parse(req(path, query));
  if (!p?.ok) throw new Error(JSON.stringify(p));
  const res = a.renderSearch?.(p.request.state, answer);
  if (!res) throw new Error('no renderSearch');
  return { status: res.status, body: JSON.parse(res.body) as Body };
};

type Row = readonly [string, string, Record<string, unknown>];
type Bad = readonly [string, string, string];
const PARSE: readonly [string, Adapter, readonly Row[], readonly Bad[]][] = [
  [
    'geoapify',
    geoapify as Adapter,
    [
      ['/v1/geocode/search', 'text=Paris&apiKey=K', { q: 'Paris', limit: 5 }],
      [
        '/v1/geocode/search',
        'text=Paris&filter=countrycode:fr,be&bias=proximity:2.35,48.85&lang=fr&limit=2',
        { countries: ['FR', 'BE'], focus: { lat: 48.85, lon: 2.35 }, language: 'fr', limit: 2 },
      ],
      [
        '/v1/geocode/search',
        'housenumber=1&street=Rue de Rivoli&city=Paris',
        { q: '1 Rue de Rivoli, Paris', parts: { street: '1 Rue de Rivoli', city: 'Paris' } },
      ],
    ],
    [
      ['/v1/geocode/search', 'text=', 'text'],
      ['/v1/geocode/search', 'text=Paris&format=xml', 'format'],
      ['/v1/geocode/search', 'text=Paris&filter=countrycode:france', 'filter'],
    ],
  ],
  [
    'here',
    here as Adapter,
    [
      ['/v1/geocode', 'q=Paris&apiKey=K', { q: 'Paris', limit: 20 }],
      [
        '/v1/geocode',
        'q=Paris&in=countryCode:FRA,BEL&at=48.85,2.35&lang=fr',
        { countries: ['FR', 'BE'], focus: { lat: 48.85, lon: 2.35 } },
      ],
      ['/v1/geocode', 'qq=city=Paris;country=France', { q: 'Paris, France' }],
      [
        '/6.2/geocode.json',
        'searchtext=Paris&country=FRA&maxresults=3',
        { q: 'Paris', countries: ['FR'], limit: 3 },
      ],
    ],
    [
      ['/v1/geocode', '', 'q'],
      ['/v1/geocode', 'q=Paris&in=bbox:1,2,3,4', 'in'],
      ['/v1/geocode', 'q=Paris&in=countryCode:XXX', 'in'],
      ['/6.2/geocode.json', 'searchtext=Paris&prox=200,1', 'prox'],
    ],
  ],
  [
    'tomtom',
    tomtom as Adapter,
    [
      ['/search/2/geocode/Paris.json', 'key=K', { q: 'Paris', limit: 10 }],
      [
        '/search/2/geocode/Paris.json',
        'countrySet=FR,DEU&limit=2&lat=48.8&lon=2.3',
        { countries: ['FR', 'DE'], limit: 2, focus: { lat: 48.8, lon: 2.3 } },
      ],
    ],
    [
      ['/search/2/geocode/Paris.xml', '', 'ext'],
      ['/search/2/geocode/!!.json', '', 'query'],
      ['/search/2/geocode/Paris.json', 'countrySet=XX', 'countrySet'],
      ['/search/2/geocode/Paris.json', 'lat=1', 'lon'],
    ],
  ],
  [
    'bing',
    bing as Adapter,
    [
      ['/REST/v1/Locations', 'query=Paris&key=K', { q: 'Paris', limit: 5 }],
      [
        '/REST/v1/Locations',
        'q=Paris&maxResults=2&c=fr-FR&userLocation=48.8,2.3',
        { limit: 2, language: 'fr-FR', focus: { lat: 48.8, lon: 2.3 } },
      ],
      ['/REST/v1/Locations/Paris France', '', { q: 'Paris France' }],
      [
        '/REST/v1/Locations',
        'locality=Paris&countryRegion=FR',
        { q: 'Paris, FR', countries: ['FR'], parts: { city: 'Paris', country: 'FR' } },
      ],
    ],
    [
      ['/REST/v1/Locations', '', 'query'],
      ['/REST/v1/Locations', 'query=Paris&maxResults=x', 'maxResults'],
      ['/REST/v1/Locations', 'query=Paris&o=xml', 'o'],
    ],
  ],
  [
    'positionstack',
    positionstack as Adapter,
    [
      ['/v1/forward', 'access_key=K&query=Paris', { q: 'Paris', limit: 10 }],
      [
        '/v1/forward',
        'query=Paris&country=FR,BEL&limit=3&language=fr',
        { countries: ['FR', 'BE'], limit: 3, language: 'fr' },
      ],
    ],
    [
      ['/v1/forward', 'query=', 'query'],
      ['/v1/forward', 'query=Paris&output=xml', 'output'],
      ['/v1/forward', 'query=Paris&country=Frankreich', 'country'],
    ],
  ],
  [
    'geocodio',
    geocodio as Adapter,
    [
      [
        '/v1.7/geocode',
        'q=1109 N Highland St, Arlington VA&api_key=K',
        { q: '1109 N Highland St, Arlington VA', limit: 10 },
      ],
      [
        '/v1.7/geocode',
        'street=1109 N Highland St&city=Arlington&state=VA',
        {
          q: '1109 N Highland St, Arlington, VA',
          parts: { street: '1109 N Highland St', city: 'Arlington', state: 'VA' },
        },
      ],
    ],
    [
      ['/v1.7/geocode', 'q=', 'q'],
      ['/v1.7/geocode', 'q=a&city=b', 'q'],
      ['/v1.7/geocode', 'q=Paris&limit=0', 'limit'],
    ],
  ],
];

describe.each(PARSE)('%s forward parse', (_name, adapter, good, bad) => {
  test.each(good.map((g) => [...g]))('%s?%s → %j', (path, query, call) => {
    const p = adapter.parse(req(path, query));
    if (!p?.ok) throw new Error(JSON.stringify(p));
    expect(p.request.call).toMatchObject({ kind: 'search', ...call });
  });
  test.each(bad.map((b) => [...b]))('%s?%s is refused naming %s', (path, query, parameter) => {
    expect(adapter.parse(req(path, query))).toMatchObject({
      ok: false,
      code: 'invalid_parameter',
      facts: { parameter },
    });
  });
});

test('geoapify: features best first with rank.confidence and bbox; json results; nothing matched is empty', () => {
  const geo = render(geoapify, '/v1/geocode/search', 'text=london', LONDON).body;
  expect((geo['features'] as Body[])[0]).toMatchObject({
    bbox: [-0.2876474, 51.3473219, 0.0323526, 51.6673219],
    properties: { city: 'London', country_code: 'gb', rank: { confidence: 0.9655 } },
  });
  const list = render(geoapify, '/v1/geocode/search', 'text=paris&format=json', PARIS).body;
  expect((list['results'] as Body[]).map((r) => r['formatted'])).toEqual([
    'Paris, Île-de-France, France',
    'La Defense, Hauts-de-Seine, Île-de-France, France',
  ]);
  expect(render(geoapify, '/v1/geocode/search', 'text=x', EMPTY).body).toMatchObject({ features: [] });
});

test('here: v7 items with scoring and mapView; legacy View/Result with Relevance; nothing matched is empty', () => {
  const v7 = render(here, '/v1/geocode', 'q=london', LONDON).body;
  expect((v7['items'] as Body[])[0]).toMatchObject({
    title: 'London, Greater London, England, SW1A 2DU, United Kingdom',
    resultType: 'locality',
    address: { countryCode: 'GBR', city: 'London' },
    scoring: { queryScore: 0.9655 },
    mapView: { west: -0.2876474, south: 51.3473219, east: 0.0323526, north: 51.6673219 },
  });
  const legacy = render(here, '/6.2/geocode.json', 'searchtext=paris', PARIS).body;
  const view = (legacy['Response'] as { View: { Result: Body[] }[] }).View[0];
  expect(view?.Result.map((r) => r['Relevance'])).toEqual([1, 0.5]);
  expect(render(here, '/v1/geocode', 'q=x', EMPTY).body).toMatchObject({ items: [] });
  expect(render(here, '/6.2/geocode.json', 'searchtext=x', EMPTY).body).toMatchObject({
    Response: { View: [] },
  });
});

test('tomtom: summary and results with score and viewport; nothing matched is numResults 0', () => {
  const t = render(tomtom, '/search/2/geocode/London.json', '', LONDON).body;
  expect(t['summary']).toMatchObject({ query: 'london', numResults: 1, totalResults: 1 });
  expect((t['results'] as Body[])[0]).toMatchObject({
    type: 'Geography',
    entityType: 'Municipality',
    address: { municipality: 'London', countryCode: 'GB', countryCodeISO3: 'GBR' },
    position: { lat: 51.5073219, lon: -0.1276474 },
    viewport: {
      topLeftPoint: { lat: 51.6673219, lon: -0.2876474 },
      btmRightPoint: { lat: 51.3473219, lon: 0.0323526 },
    },
  });
  const p = render(tomtom, '/search/2/geocode/Paris.json', '', PARIS).body;
  const scores = (p['results'] as { score: number }[]).map((r) => r.score);
  expect(scores[0]).toBeGreaterThan(scores[1] as number);
  expect(render(tomtom, '/search/2/geocode/x.json', '', EMPTY).body).toMatchObject({
    summary: { numResults: 0 },
    results: [],
  });
});

test('bing: one resource set, bbox [s, w, n, e], High/Medium/Low confidence; nothing matched is empty', () => {
  const b = render(bing, '/REST/v1/Locations', 'query=london', LONDON).body;
  const set = (b['resourceSets'] as { estimatedTotal: number; resources: Body[] }[])[0];
  expect(set?.estimatedTotal).toBe(1);
  expect(set?.resources[0]).toMatchObject({
    bbox: [51.3473219, -0.2876474, 51.6673219, 0.0323526],
    confidence: 'High',
    entityType: 'PopulatedPlace',
    address: { locality: 'London', countryRegionIso2: 'GB' },
  });
  const p = render(bing, '/REST/v1/Locations', 'query=paris', PARIS).body;
  const res = (p['resourceSets'] as { resources: { confidence: string }[] }[])[0]?.resources;
  expect(res?.map((r) => r.confidence)).toEqual(['High', 'Medium']);
  expect(render(bing, '/REST/v1/Locations', 'query=x', EMPTY).body).toMatchObject({
    statusCode: 200,
    resourceSets: [{ estimatedTotal: 0, resources: [] }],
  });
});

test('positionstack: data best first with confidence, no distance; nothing matched is data []', () => {
  const d = render(positionstack, '/v1/forward', 'query=paris', PARIS).body;
  expect((d['data'] as Body[]).map((r) => [r['label'], r['confidence'], r['distance']])).toEqual([
    ['Paris, Île-de-France, France', 1, null],
    ['La Defense, Hauts-de-Seine, Île-de-France, France', 0.5, null],
  ]);
  expect((d['data'] as Body[])[0]).toMatchObject({
    country_code: 'FRA',
    continent: 'Europe',
    type: 'locality',
  });
  expect(render(positionstack, '/v1/forward', 'query=x', EMPTY).body).toMatchObject({ data: [] });
});

test('geocodio: the input echoed, results best first with accuracy; nothing matched is results []', () => {
  const g = render(geocodio, '/v1.7/geocode', 'q=paris', PARIS).body;
  expect(g['input']).toEqual({ formatted_address: 'paris' });
  expect((g['results'] as Body[]).map((r) => [r['formatted_address'], r['accuracy']])).toEqual([
    ['Paris, Île-de-France, France', 1],
    ['La Defense, Hauts-de-Seine, Île-de-France, France', 0.5],
  ]);
  expect(render(geocodio, '/v1.7/geocode', 'q=x', EMPTY).body).toMatchObject({ results: [] });
});

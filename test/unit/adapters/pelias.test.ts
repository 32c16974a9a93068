import { pelias, PELIAS_ERRORS } from '../../../adapters/pelias';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const PATH = '/v1/reverse';
const state = (query: string) => parsed(pelias.parse(req(PATH, query))).state;

describe('pelias adapter: accepted request forms', () => {
  it.each([
    'point.lat=48.8584&point.lon=2.2945',
    'point.lon=2.2945&point.lat=48.8584&api_key=K&size=1&lang=en',
    'point.lat=48.8584&point.lon=2.2945&layers=locality&sources=wof&boundary.circle.radius=1',
  ])('reads %s', (query) => {
    const p = parsed(pelias.parse(req(PATH, query)));
    expect(p.call).toEqual({ kind: 'reverse', lat: 48.8584, lon: 2.2945 });
    expect(p.state).toEqual({ query: { 'point.lat': 48.8584, 'point.lon': 2.2945 } });
  });

  it.each([
    ['point.lat=91&point.lon=2', 'point.lat'],
    ['point.lat=1', 'point.lon'],
    ['lat=1&lon=2', 'point.lat'],
    ['point.lat=1&point.lon=2&point.lon=3', 'point.lon'],
  ])('refuses %s naming %s', (query, parameter) => {
    expect(refused(pelias.parse(req(PATH, query)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  it.each(['/v1/reverse/', '/v1/search/'])(
    'routes %s as without its trailing slash, as Pelias does',
    (path) => {
      const result = pelias.parse(req(path, 'point.lat=48.8584&point.lon=2.2945&text=berlin'));
      if (path === '/v1/search/') expect(parsed(result).call).toMatchObject({ kind: 'search' });
      else expect(parsed(result).call).toEqual({ kind: 'reverse', lat: 48.8584, lon: 2.2945 });
    },
  );

  // Forward search is served since issue 11 (pelias rows of forward-adapters.test.ts); a search without its text is
  // refused naming the parameter.
  it.each([
    ['/v1/search', 'text'],
    ['/v1/search/structured', 'address'],
    ['/v1/autocomplete', 'text'],
  ])('refuses a forward search without its text on %s naming %s', (path, parameter) => {
    expect(refused(pelias.parse(req(path, 'text=')))).toEqual({
      code: 'invalid_parameter',
      parameter,
    });
  });

  it('answers null for other paths, refuses POST, and reads api_key', () => {
    expect(pelias.parse(req('/v1/place', 'ids=x'))).toBeNull();
    expect(pelias.parse(req('/reverse', 'point.lat=1&point.lon=2'))).toBeNull();
    expect(refused(pelias.parse({ ...req(PATH, 'point.lat=1&point.lon=2'), method: 'DELETE' })).code).toBe(
      'method_not_allowed',
    );
    expect(pelias.providerCredentials(req(PATH, `api_key=${SECRET}`))).toEqual([
      { position: 'query:api_key', value: SECRET },
    ]);
    expect(pelias.credentialParams).toEqual(['api_key']);
  });
});

describe('pelias adapter: success rendering', () => {
  it('renders the geocoding envelope and one locality feature', () => {
    const b = body(pelias.renderReverse(state('point.lat=48.8584&point.lon=2.2945'), PARIS));
    expect(b.geocoding).toEqual({
      version: '0.2',
      attribution: PARIS.attribution,
      query: { 'point.lat': 48.8584, 'point.lon': 2.2945, size: 1 },
      engine: { name: 'Pelias', author: 'Mapzen', version: '1.0' },
    });
    expect(b.type).toBe('FeatureCollection');
    expect(b.bbox).toEqual([2.3388, 48.84341, 2.3588, 48.86341]);
    const f = b.features[0];
    expect(f.geometry).toEqual({ type: 'Point', coordinates: [2.3488, 48.85341] });
    expect(f.properties).toMatchObject({
      layer: 'locality',
      source: 'geogate',
      name: 'Paris',
      country: 'France',
      country_a: 'FRA',
      country_code: 'FR',
      region: 'Île-de-France',
      locality: 'Paris',
      distance: 4.213,
      label: PARIS.displayName,
    });
    expect(f.properties.gid).toBe(`geogate:locality:${f.properties.id}`);
  });

  it('renders open sea as no features and no bbox', () => {
    const b = body(pelias.renderReverse(state('point.lat=0&point.lon=-30'), OPEN_SEA));
    expect(b.features).toEqual([]);
    expect(b.bbox).toBeUndefined();
  });
});

describe('pelias adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s in the envelope with geocoding.errors', (code) => {
    const row = PELIAS_ERRORS[code];
    const res = pelias.renderError(
      state('point.lat=1&point.lon=2'),
      code === 'not_found' ? 'internal' : code,
      'd',
      {},
    );
    expect(res.status).toBe(PELIAS_ERRORS[code === 'not_found' ? 'internal' : code].status);
    const plain = pelias.renderError(null, code, '', {});
    expect(plain.status).toBe(row.status);
    expect(body(plain)).toEqual({
      geocoding: { version: '0.2', query: {}, errors: [row.error], engine: expect.any(Object) },
      type: 'FeatureCollection',
      features: [],
    });
    expect(body(res).geocoding.errors).toEqual(['d']);
  });

  it('follows geocode.earth: 401 without or with a bad key, 403 over plan, 429 for the daily limit', () => {
    expect([PELIAS_ERRORS.missing_key.status, PELIAS_ERRORS.invalid_key.status]).toEqual([401, 401]);
    expect(PELIAS_ERRORS.no_credits.status).toBe(403);
    expect(PELIAS_ERRORS.quota_exceeded.status).toBe(429);
  });

  it('renders "no result" for a parsed request as an empty 200 collection', () => {
    const res = pelias.renderError(state('point.lat=1&point.lon=2'), 'not_found', 'x', {});
    expect(res.status).toBe(200);
    expect(body(res).features).toEqual([]);
  });
});

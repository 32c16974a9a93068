import { photon, PHOTON_ERRORS } from '../../../adapters/photon';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const state = (query: string) => parsed(photon.parse(req('/reverse', query))).state;

describe('photon adapter: accepted request forms', () => {
  it.each([
    ['/reverse', 'lat=48.8584&lon=2.2945'],
    ['/reverse/', 'lat=48.8584&lon=2.2945'],
    ['/reverse', 'lon=2.2945&lat=48.8584&limit=1&lang=en&radius=1&key=K'],
    ['/reverse', 'lat=48.8584&lon=2.2945&layer=city&osm_tag=place&distance_sort=true'],
  ])('reads %s?%s', (path, query) => {
    const p = parsed(photon.parse(req(path, query)));
    expect(p.call).toEqual({ kind: 'reverse', lat: 48.8584, lon: 2.2945 });
    expect(p.state).toEqual({ query: { lat: 48.8584, lon: 2.2945 } });
  });

  it.each([
    ['lat=95&lon=2', 'lat'],
    ['lat=1', 'lon'],
    ['lat=1&lon=2e1', 'lon'],
    ['lat=1&lat=2&lon=2', 'lat'],
  ])('refuses %s naming %s', (query, parameter) => {
    expect(refused(photon.parse(req('/reverse', query)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  // Forward search is served since issue 11 (photon rows of forward-adapters.test.ts); without q it is refused.
  it.each(['/api', '/api/'])(
    'refuses a forward search without q on %s naming q (Photon 400 shape)',
    (path) => {
      expect(refused(photon.parse(req(path, 'q=')))).toEqual({
        code: 'invalid_parameter',
        parameter: 'q',
      });
    },
  );

  it('answers null for other paths, refuses POST, and reads key', () => {
    expect(photon.parse(req('/reverse.php', 'lat=1&lon=2'))).toBeNull();
    expect(photon.parse(req('/', ''))).toBeNull();
    expect(refused(photon.parse({ ...req('/reverse', 'lat=1&lon=2'), method: 'POST' })).code).toBe(
      'method_not_allowed',
    );
    expect(photon.providerCredentials(req('/reverse', `lat=1&lon=2&key=${SECRET}`))).toEqual([
      { position: 'query:key', value: SECRET },
    ]);
    expect(photon.credentialParams).toEqual(['key']);
  });
});

describe('photon adapter: success rendering', () => {
  it('renders a FeatureCollection with Photon properties and the attribution', () => {
    const b = body(photon.renderReverse(state('lat=48.8584&lon=2.2945'), PARIS));
    expect(b.type).toBe('FeatureCollection');
    expect(b.attribution).toBe(PARIS.attribution);
    expect(b.features).toHaveLength(1);
    expect(b.features[0].geometry).toEqual({ type: 'Point', coordinates: [2.3488, 48.85341] });
    expect(b.features[0].properties).toMatchObject({
      osm_key: 'place',
      osm_value: 'city',
      type: 'city',
      name: 'Paris',
      city: 'Paris',
      state: 'Île-de-France',
      country: 'France',
      countrycode: 'FR',
      extent: [2.3388, 48.86341, 2.3588, 48.84341],
    });
  });

  it('renders open sea as an empty FeatureCollection', () => {
    expect(body(photon.renderReverse(state('lat=0&lon=-30'), OPEN_SEA)).features).toEqual([]);
  });
});

describe('photon adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s as {message} with the table status', (code) => {
    const row = PHOTON_ERRORS[code];
    const res = photon.renderError(null, code, 'the detail', {});
    expect(res.status).toBe(row.status);
    expect(body(res)).toEqual({ message: 'the detail' });
    expect(body(photon.renderError(null, code, '', {}))).toEqual({ message: row.message });
  });

  it('renders "no result" for a parsed request as an empty 200 FeatureCollection', () => {
    const res = photon.renderError(state('lat=1&lon=2'), 'not_found', 'x', {});
    expect(res.status).toBe(200);
    expect(body(res)).toEqual({ type: 'FeatureCollection', features: [] });
  });
});

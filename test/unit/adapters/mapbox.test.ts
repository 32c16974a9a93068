import { mapbox, MAPBOX_ERRORS, unwrapToken } from '../../../adapters/mapbox';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, NEW_YORK, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const V5 = '/geocoding/v5/mapbox.places';
const V6 = '/search/geocode/v6/reverse';

describe('mapbox adapter: request translation', () => {
  it.each([
    [`${V5}/2.2945,48.8584.json`, ''],
    [`${V5}/2.2945%2C48.8584.json`, ''],
    [`${V5}/2.2945%2c48.8584.json`, 'limit=1&types=address'],
    ['/geocoding/v5/mapbox.places-permanent/2.2945,48.8584.json', ''],
    [V6, 'longitude=2.2945&latitude=48.8584'],
  ])('reads longitude first from %s?%s', (path, query) => {
    expect(parsed(mapbox.parse(req(path, query))).call).toEqual({
      kind: 'reverse',
      lat: 48.8584,
      lon: 2.2945,
    });
  });

  it.each([
    [`${V5}/200,48.8584.json`, '', 'longitude'],
    [`${V5}/2.29,95.json`, '', 'latitude'],
    [`${V5}/!!.json`, '', 'query'], // a text is a forward lookup since issue 11; one without letters is refused
    [`${V5}/1,2,3.json`, '', 'query'],
    [V6, 'longitude=2.29', 'latitude'],
    [V6, 'longitude=abc&latitude=1', 'longitude'],
    [V6, 'longitude=1&longitude=2&latitude=1', 'longitude'],
  ])('refuses %s?%s naming %s', (path, query, parameter) => {
    expect(refused(mapbox.parse(req(path, query)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  it('answers null for other paths', () => {
    expect(mapbox.parse(req('/geocoding/v5/mapbox.places/2,48', ''))).toBeNull();
    expect(mapbox.parse(req('/search/geocode/v6/batch', 'q=x'))).toBeNull(); // v6 forward is served (issue 11)
    expect(mapbox.parse(req('/styles/v1/x', ''))).toBeNull();
  });

  it('reads access_token from the query', () => {
    expect(mapbox.providerCredentials(req(V6, `access_token=${SECRET}&latitude=1&longitude=2`))).toEqual([
      { position: 'query:access_token', value: SECRET },
    ]);
    expect(mapbox.credentialParams).toEqual(['access_token']);
  });

  it('unwraps a key sent as the third part of a Mapbox-shaped token (the SDK needs pk.<payload>.<sig>)', () => {
    const token = `pk.eyJ1IjoiZ2VvZ2F0ZSJ9.${SECRET}`;
    expect(mapbox.providerCredentials(req(V6, `access_token=${encodeURIComponent(token)}`))).toEqual([
      { position: 'query:access_token', value: SECRET },
    ]);
    expect(unwrapToken('gk_plainkey')).toBe('gk_plainkey');
    expect(unwrapToken('pk.onlytwo')).toBe('pk.onlytwo');
  });
});

describe('mapbox adapter: success rendering', () => {
  it('renders a v5 place feature with the context node-geocoder reads', () => {
    const state = parsed(mapbox.parse(req(`${V5}/2.2945,48.8584.json`, ''))).state;
    const b = body(mapbox.renderReverse(state, PARIS));
    expect(b).toMatchObject({
      type: 'FeatureCollection',
      query: [2.2945, 48.8584],
      attribution: PARIS.attribution,
    });
    const f = b.features[0];
    expect(f.id).toMatch(/^place\.\d+$/);
    expect(f).toMatchObject({
      text: 'Paris',
      place_name: PARIS.displayName,
      center: [2.3488, 48.85341],
      place_type: ['place'],
    });
    const ctx = Object.fromEntries(f.context.map((c: { id: string }) => [c.id.split('.')[0], c]));
    expect(ctx.country).toMatchObject({ text: 'France', short_code: 'fr' });
    expect(ctx.region.text).toBe('Île-de-France');
  });

  it('gives a letter region an ISO-style short code', () => {
    const b = body(mapbox.renderReverse({ version: 5, level: 'place', query: [0, 0] }, NEW_YORK));
    expect(b.features[0].context).toContainEqual({
      id: expect.stringMatching(/^region\./),
      text: 'New York',
      short_code: 'US-NY',
    });
  });

  it('answers the country feature when types=country and no feature when types excludes all levels', () => {
    const country = parsed(mapbox.parse(req(`${V5}/2,48.json`, 'types=country'))).state;
    expect(body(mapbox.renderReverse(country, PARIS)).features[0]).toMatchObject({
      text: 'France',
      place_type: ['country'],
    });
    const address = parsed(mapbox.parse(req(`${V5}/2,48.json`, 'types=address'))).state;
    expect(body(mapbox.renderReverse(address, PARIS)).features).toEqual([]);
    expect(
      body(mapbox.renderReverse({ version: 5, level: 'place', query: [0, 0] }, OPEN_SEA)).features,
    ).toEqual([]);
  });

  it('renders v6 with properties.context', () => {
    const state = parsed(mapbox.parse(req(V6, 'longitude=2.2945&latitude=48.8584'))).state;
    const b = body(mapbox.renderReverse(state, PARIS));
    expect(b.attribution).toBe(PARIS.attribution);
    const p = b.features[0].properties;
    expect(p).toMatchObject({ feature_type: 'place', name: 'Paris', full_address: PARIS.displayName });
    expect(p.coordinates).toEqual({ longitude: 2.3488, latitude: 48.85341 });
    expect(p.context.country).toMatchObject({
      name: 'France',
      country_code: 'FR',
      country_code_alpha_3: 'FRA',
    });
    expect(p.context.place.name).toBe('Paris');
  });
});

describe('mapbox adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s as {message} with the table status', (code) => {
    const res = mapbox.renderError(null, code, 'the detail', {});
    expect(res.status).toBe(MAPBOX_ERRORS[code].status);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(body(res)).toEqual({ message: 'the detail' });
    expect(body(mapbox.renderError(null, code, '', {}))).toEqual({ message: MAPBOX_ERRORS[code].message });
  });

  it("renders the backend's no-result (not_found on a parsed request) as an empty FeatureCollection", () => {
    const res = mapbox.renderError(
      { version: 5, level: 'place', query: [2, 48] },
      'not_found',
      'No result.',
      {},
    );
    expect(res.status).toBe(200);
    expect(body(res)).toEqual({ type: 'FeatureCollection', query: [2, 48], features: [] });
  });

  it('uses 401 for keys, 429 for the quota and 422 for bad input, like Mapbox', () => {
    expect([
      MAPBOX_ERRORS.invalid_key.status,
      MAPBOX_ERRORS.quota_exceeded.status,
      MAPBOX_ERRORS.invalid_parameter.status,
    ]).toEqual([401, 429, 422]);
  });
});

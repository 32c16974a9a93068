import { geoapify, GEOAPIFY_ERRORS } from '../../../adapters/geoapify';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const PATH = '/v1/geocode/reverse';
const state = (query: string) => parsed(geoapify.parse(req(PATH, query))).state;

describe('geoapify adapter: request translation', () => {
  it.each([
    ['lat=48.8584&lon=2.2945&apiKey=K', 'geojson'],
    ['lat=48.8584&lon=2.2945&format=json&lang=fr&limit=1', 'json'],
    ['lat=48.8584&lon=2.2945&type=city', 'geojson'],
  ])('reads %s', (query, format) => {
    const p = parsed(geoapify.parse(req(PATH, query)));
    expect(p.call).toEqual({ kind: 'reverse', lat: 48.8584, lon: 2.2945 });
    expect(p.state.format).toBe(format);
  });

  it.each([
    ['lat=95&lon=2', 'lat'],
    ['lat=1&lon=', 'lon'],
    ['lat=1&lon=2&format=xml', 'format'],
    ['lat=1&lon=2&format=json&format=geojson', 'format'],
  ])('refuses %s naming %s', (query, parameter) => {
    expect(refused(geoapify.parse(req(PATH, query)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  it('answers null for other paths and reads apiKey', () => {
    expect(geoapify.parse(req('/v1/geocode/autocomplete', 'text=x'))).toBeNull(); // /search is served (issue 11)
    expect(geoapify.providerCredentials(req(PATH, `apiKey=${SECRET}`))).toEqual([
      { position: 'query:apiKey', value: SECRET },
    ]);
    expect(geoapify.credentialParams).toEqual(['apiKey']);
  });
});

describe('geoapify adapter: success rendering', () => {
  it('renders a GeoJSON feature with the datasource attribution', () => {
    const b = body(geoapify.renderReverse(state('lat=48.8584&lon=2.2945'), PARIS));
    expect(b.type).toBe('FeatureCollection');
    const f = b.features[0];
    expect(f.geometry).toEqual({ type: 'Point', coordinates: [2.3488, 48.85341] });
    expect(f.properties).toMatchObject({
      city: 'Paris',
      country: 'France',
      country_code: 'fr',
      state: 'Île-de-France',
      formatted: PARIS.displayName,
      result_type: 'city',
      datasource: { attribution: PARIS.attribution },
      timezone: { name: 'Europe/Paris' },
    });
  });

  it('renders format=json as results, and type=country at country level', () => {
    const j = body(geoapify.renderReverse(state('lat=1&lon=2&format=json'), PARIS));
    expect(j.results[0]).toMatchObject({ city: 'Paris', lat: 48.85341, lon: 2.3488 });
    const c = body(geoapify.renderReverse(state('lat=1&lon=2&type=country'), PARIS)).features[0].properties;
    expect(c).toMatchObject({ result_type: 'country', name: 'France' });
    expect(c.city).toBeUndefined();
    expect(body(geoapify.renderReverse(state('lat=1&lon=2&type=street'), PARIS)).features).toEqual([]);
    expect(body(geoapify.renderReverse(state('lat=0&lon=-30'), OPEN_SEA)).features).toEqual([]);
  });
});

describe('geoapify adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s as {statusCode, error, message}', (code) => {
    const row = GEOAPIFY_ERRORS[code];
    const res = geoapify.renderError(null, code, 'the detail', {});
    expect(res.status).toBe(row.status);
    expect(body(res)).toEqual({ statusCode: row.status, error: row.error, message: 'the detail' });
  });
});

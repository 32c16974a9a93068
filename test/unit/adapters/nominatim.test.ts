import { nominatim, NOMINATIM_ERRORS } from '../../../adapters/nominatim';
import { ALL_GATEWAY_CODES, codeToStatus } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const view = (query: string) => parsed(nominatim.parse(req('/reverse', query))).state;

describe('nominatim adapter: request translation', () => {
  it.each(['/reverse', '/reverse.php'])('serves %s', (path) => {
    const p = parsed(nominatim.parse(req(path, 'lat=48.8584&lon=2.2945&format=json&addressdetails=1')));
    expect(p.call).toEqual({ kind: 'reverse', lat: 48.8584, lon: 2.2945 });
  });

  it.each(['xml', 'json', 'jsonv2', 'geojson', 'geocodejson'])('accepts format=%s', (format) => {
    expect(view(`lat=1&lon=2&format=${format}`).format).toBe(format);
  });

  it('defaults to xml, zoom 18 and address details, and ignores the osmServer leak of node-geocoder', () => {
    expect(view('lat=1&lon=2&osmServer=http%3A%2F%2Fx')).toMatchObject({
      format: 'xml',
      zoom: 18,
      addressdetails: true,
    });
  });

  it.each([
    ['lat=91&lon=2', 'lat'],
    ['lat=1&lon=-181', 'lon'],
    ['lon=2', 'lat'],
    ['lat=1e1&lon=2', 'lat'],
    ['lat=1&lon=2&format=html', 'format'],
    ['lat=1&lon=2&zoom=19', 'zoom'],
    ['lat=1&lon=2&addressdetails=yes', 'addressdetails'],
    ['lat=1&lat=2&lon=2', 'lat'],
  ])('refuses %s with invalid_parameter naming %s', (query, parameter) => {
    expect(refused(nominatim.parse(req('/reverse', query)))).toEqual({
      code: 'invalid_parameter',
      parameter,
    });
  });

  it('answers null for other paths and method_not_allowed for POST', () => {
    // /search is served since issue 11 (test/unit/adapters/nominatim-search.test.ts); /lookup is not.
    expect(nominatim.parse(req('/lookup', 'osm_ids=R146656'))).toBeNull();
    expect(refused(nominatim.parse(req('/reverse', 'lat=1&lon=2', {}, 'POST'))).code).toBe(
      'method_not_allowed',
    );
  });

  it('reads the added key query parameter as query:key', () => {
    expect(nominatim.providerCredentials(req('/reverse', `lat=1&lon=2&key=${SECRET}`))).toEqual([
      { position: 'query:key', value: SECRET },
    ]);
    expect(nominatim.credentialParams).toEqual(['key']);
  });
});

describe('nominatim adapter: success rendering', () => {
  it('renders json with the fields node-geocoder reads and the licence', () => {
    const b = body(nominatim.renderReverse(view('lat=48.8584&lon=2.2945&format=json'), PARIS));
    expect(b).toMatchObject({
      licence: PARIS.attribution,
      lat: '48.8534100',
      lon: '2.3488000',
      class: 'place',
      type: 'city',
      display_name: PARIS.displayName,
      address: {
        city: 'Paris',
        county: 'Paris',
        state: 'Île-de-France',
        country: 'France',
        country_code: 'fr',
      },
    });
    expect(b.boundingbox).toHaveLength(4);
  });

  it('renders jsonv2 with category instead of class, and no address with addressdetails=0', () => {
    const b = body(nominatim.renderReverse(view('lat=1&lon=2&format=jsonv2&addressdetails=0'), PARIS));
    expect(b.category).toBe('place');
    expect(b.class).toBeUndefined();
    expect(b.address).toBeUndefined();
  });

  it('renders geojson and geocodejson FeatureCollections', () => {
    const g = body(nominatim.renderReverse(view('lat=1&lon=2&format=geojson'), PARIS));
    expect(g.licence).toBe(PARIS.attribution);
    expect(g.features[0].geometry).toEqual({ type: 'Point', coordinates: [2.3488, 48.85341] });
    expect(g.features[0].properties.address.country_code).toBe('fr');
    const c = body(nominatim.renderReverse(view('lat=1&lon=2&format=geocodejson'), PARIS));
    expect(c.geocoding.attribution).toBe(PARIS.attribution);
    expect(c.features[0].properties.geocoding).toMatchObject({
      city: 'Paris',
      country: 'France',
      label: PARIS.displayName,
    });
  });

  it('renders xml with the attribution and address parts', () => {
    const res = nominatim.renderReverse(view('lat=48.8584&lon=2.2945'), PARIS);
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    expect(res.body).toContain(
      '<reversegeocode attribution="Place data © GeoNames (CC BY 4.0); borders © country-coder"',
    );
    expect(res.body).toContain('<city>Paris</city>');
    expect(res.body).toContain('<country_code>fr</country_code>');
    expect(res.body).toContain('querystring="lat=48.8584&amp;lon=2.2945&amp;format=xml&amp;zoom=18"');
  });

  it('answers the country at zoom 3 and the state at zoom 8', () => {
    expect(body(nominatim.renderReverse(view('lat=1&lon=2&format=json&zoom=3'), PARIS))).toMatchObject({
      type: 'country',
      display_name: 'France',
      address: { country: 'France', country_code: 'fr' },
    });
    expect(body(nominatim.renderReverse(view('lat=1&lon=2&format=json&zoom=8'), PARIS)).address.state).toBe(
      'Île-de-France',
    );
  });

  it('answers 200 "Unable to geocode" over open sea, as Nominatim does', () => {
    const res = nominatim.renderReverse(view('lat=0&lon=-30&format=json'), OPEN_SEA);
    expect(res.status).toBe(200);
    expect(body(res)).toEqual({ error: 'Unable to geocode' });
    expect(nominatim.renderReverse(view('lat=0&lon=-30'), OPEN_SEA).body).toContain(
      '<error>Unable to geocode</error>',
    );
  });
});

describe('nominatim adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))(
    'renders %s in JSON (also when the request was not parsed)',
    (code) => {
      const row = NOMINATIM_ERRORS[code];
      expect(row.status).toBe(codeToStatus(code));
      const res = nominatim.renderError(null, code, 'the detail', {});
      expect(res.status).toBe(row.status);
      expect(res.headers['content-type']).toMatch(/json/);
      expect(body(res)).toEqual(
        row.shape === 'string'
          ? { error: 'the detail' }
          : { error: { code: row.status, message: 'the detail' } },
      );
    },
  );

  it.each(ALL_GATEWAY_CODES.filter((c) => c !== 'not_found').map((c) => [c]))(
    'renders %s in XML for format=xml',
    (code) => {
      const row = NOMINATIM_ERRORS[code];
      const x = nominatim.renderError(view('lat=1&lon=2&format=xml'), code, 'a < b', {});
      expect(x.status).toBe(row.status);
      expect(x.body).toContain(`<error><code>${row.status}</code><message>a &lt; b</message></error>`);
      expect(
        nominatim.renderError(view('lat=1&lon=2&format=jsonv2'), code, 'd', {}).headers['content-type'],
      ).toMatch(/json/);
    },
  );

  it("renders the backend's no-result (not_found on a parsed request) as 200 Unable to geocode", () => {
    const res = nominatim.renderError(view('lat=1&lon=2&format=json'), 'not_found', 'No result found.', {});
    expect(res.status).toBe(200);
    expect(body(res)).toEqual({ error: 'Unable to geocode' });
    expect(nominatim.renderError(view('lat=1&lon=2'), 'not_found', '', {}).body).toContain(
      '<error>Unable to geocode</error>',
    );
  });

  it('uses a string error for access refusals (node-geocoder reads it) and the object form for bad requests', () => {
    expect(NOMINATIM_ERRORS.invalid_key.shape).toBe('string');
    expect(NOMINATIM_ERRORS.quota_exceeded.shape).toBe('string');
    expect(NOMINATIM_ERRORS.invalid_parameter.shape).toBe('object');
  });
});

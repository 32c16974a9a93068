import { locationiq, LOCATIONIQ_ERRORS } from '../../../adapters/locationiq';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const view = (query: string) => parsed(locationiq.parse(req('/v1/reverse', query))).state;

describe('locationiq adapter: request translation', () => {
  it.each([
    ['/v1/reverse', 'key=K&lat=48.8584&lon=2.2945&format=json&addressdetails=1'],
    ['/v1/reverse', 'lat=48.8584&lon=2.2945&zoom=10'],
    ['/v1/reverse.php', 'lat=48.8584&lon=2.2945&format=xml'],
  ])('serves %s?%s', (path, query) => {
    expect(parsed(locationiq.parse(req(path, query))).call).toEqual({
      kind: 'reverse',
      lat: 48.8584,
      lon: 2.2945,
    });
  });

  it('defaults to json', () => {
    expect(view('lat=1&lon=2').format).toBe('json');
  });

  it.each([
    ['lat=100&lon=2', 'lat'],
    ['lat=1&lon=x', 'lon'],
    ['lat=1', 'lon'],
    ['lat=1&lon=2&format=geojson', 'format'],
  ])('refuses %s naming %s', (query, parameter) => {
    expect(refused(locationiq.parse(req('/v1/reverse', query)))).toEqual({
      code: 'invalid_parameter',
      parameter,
    });
  });

  it('answers null for other paths and reads key as query:key', () => {
    expect(locationiq.parse(req('/v1/autocomplete', 'q=x'))).toBeNull(); // /v1/search is served since issue 11
    expect(locationiq.providerCredentials(req('/v1/reverse', `key=${SECRET}`))).toEqual([
      { position: 'query:key', value: SECRET },
    ]);
    expect(locationiq.credentialParams).toEqual(['key']);
  });
});

describe('locationiq adapter: success rendering', () => {
  it('renders the Nominatim-like object with the licence', () => {
    const b = body(locationiq.renderReverse(view('lat=1&lon=2&format=json'), PARIS));
    expect(b).toMatchObject({
      licence: PARIS.attribution,
      lat: '48.8534100',
      lon: '2.3488000',
      display_name: PARIS.displayName,
      address: { city: 'Paris', state: 'Île-de-France', country: 'France', country_code: 'fr' },
    });
  });

  it('answers 404 "Unable to geocode" when there is no place, as LocationIQ does', () => {
    const res = locationiq.renderReverse(view('lat=0&lon=-30'), OPEN_SEA);
    expect([res.status, body(res)]).toEqual([404, { error: 'Unable to geocode' }]);
  });
});

describe('locationiq adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s as {"error"} with the documented text', (code) => {
    const row = LOCATIONIQ_ERRORS[code];
    const res = locationiq.renderError(null, code, 'detail with no place here', {});
    expect(res.status).toBe(row.status);
    expect(body(res)).toEqual({ error: row.error });
  });

  it('uses the documented texts for keys and limits, and XML for format=xml', () => {
    expect(LOCATIONIQ_ERRORS.invalid_key).toEqual({ status: 401, error: 'Invalid key' });
    expect(LOCATIONIQ_ERRORS.quota_exceeded).toEqual({ status: 429, error: 'Rate Limited Day' });
    expect(LOCATIONIQ_ERRORS.key_ip_limit).toEqual({ status: 403, error: 'Access restricted' });
    const x = locationiq.renderError(view('lat=1&lon=2&format=xml'), 'invalid_key', '', {});
    expect(x.body).toContain('<error>Invalid key</error>');
    const none = locationiq.renderError(view('lat=1&lon=2'), 'not_found', 'No result.', {});
    expect([none.status, body(none)]).toEqual([404, { error: 'Unable to geocode' }]);
  });
});

describe('locationiq adapter: a parse refusal keeps the requested format (D24)', () => {
  /** Parse, then render the refusal with the state parse returned (what the gateway's pipeline does). */
  const renderRefusal = (path: string, query: string) => {
    const result = locationiq.parse(req(path, query));
    if (result === null || result.ok) throw new Error(`expected a refusal for ${query}`);
    return locationiq.renderError(result.state ?? null, result.code, result.detail, result.facts ?? {});
  };

  it.each([
    ['/v1/reverse', 'format=xml&lat=abc&lon=2.29'],
    ['/v1/reverse', 'format=xml&lat=48.85&lon=999'],
    ['/v1/reverse', 'format=xml&lat=48.85'],
    ['/v1/reverse.php', 'format=xml&lat=48.85&lon=2.29&zoom=40'],
    ['/v1/reverse', 'key=K&format=xml&lat=1&lat=2&lon=2.29'],
  ])('%s?%s → 400 XML <error>Invalid Request</error>', (path, query) => {
    const r = renderRefusal(path, query);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/xml/);
    expect(r.body).toMatch(/^<\?xml[^>]*\?>\n<error>Invalid Request<\/error>$/);
  });

  it.each([
    ['format=json&lat=abc&lon=2.29'],
    ['lat=abc&lon=2.29'], // json is LocationIQ's default
    ['format=geojson&lat=48.85&lon=2.29'], // unsupported format: JSON
    ['format=xml&format=json&lat=48.85&lon=2.29'], // repeated format: JSON
  ])('%s → 400 JSON {"error":"Invalid Request"}', (query) => {
    const r = renderRefusal('/v1/reverse', query);
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/json/);
    expect(body(r)).toEqual({ error: 'Invalid Request' });
  });

  it('a refused xml request never echoes the key', () => {
    const r = renderRefusal('/v1/reverse', `key=${SECRET}&format=xml&lat=abc&lon=1`);
    expect(r.body).not.toContain(SECRET);
  });
});

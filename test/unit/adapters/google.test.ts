import { google, GOOGLE_ERRORS } from '../../../adapters/google';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, NEW_YORK, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const PATH = '/maps/api/geocode/json';

describe('google adapter: request translation', () => {
  it.each([
    ['latlng=48.8584,2.2945&key=K', 48.8584, 2.2945],
    ['key=K&latlng=48.8584%2C2.2945&sensor=false', 48.8584, 2.2945],
    ['latlng=-33.9,151.2&language=fr&region=au', -33.9, 151.2],
  ])('reads latlng from %s', (query, lat, lon) => {
    expect(parsed(google.parse(req(PATH, query))).call).toEqual({ kind: 'reverse', lat, lon });
  });

  it.each([
    ['latlng=91,2', 'latlng'],
    ['latlng=48.8', 'latlng'],
    ['latlng=abc,2', 'latlng'],
    ['latlng=48.8,2&latlng=1,1', 'latlng'],
    ['latlng=0x10,2', 'latlng'],
    ['place_id=ChIJD7fiBh9u5kcRYJSMaMOCCwQ', 'place_id'], // address= is served since issue 11 (forward.test.ts)
    ['', 'latlng'],
  ])('refuses %s with invalid_parameter naming %s', (query, parameter) => {
    expect(refused(google.parse(req(PATH, query)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  // Issue 16 item 1 reverses the old refusal of the xml output: Google's `/xml` form is now served.
  it('serves the xml output and answers unknown paths with null', () => {
    expect(parsed(google.parse(req('/maps/api/geocode/xml', 'latlng=1,2'))).state).toEqual({
      filtersMatch: true,
      output: 'xml',
    });
    expect(google.parse(req('/maps/api/directions/json', 'origin=a'))).toBeNull();
    expect(google.parse(req('/', ''))).toBeNull();
  });

  it('refuses POST with method_not_allowed', () => {
    expect(refused(google.parse(req(PATH, 'latlng=1,2', {}, 'POST'))).code).toBe('method_not_allowed');
  });

  it('finds the key in the query as position query:key and lists it for stripping', () => {
    expect(google.providerCredentials(req(PATH, `latlng=1,2&key=${SECRET}`))).toEqual([
      { position: 'query:key', value: SECRET },
    ]);
    expect(google.providerCredentials(req(PATH, 'latlng=1,2'))).toEqual([]);
    expect(google.credentialParams).toContain('key');
  });
});

describe('google adapter: success rendering', () => {
  it('renders the fields node-geocoder and the official client read', () => {
    const state = parsed(google.parse(req(PATH, 'latlng=48.8584,2.2945'))).state;
    const res = google.renderReverse(state, PARIS);
    expect(res.status).toBe(200);
    const b = body(res);
    expect(b.status).toBe('OK');
    const r = b.results[0];
    expect(r.formatted_address).toBe(PARIS.displayName);
    expect(r.geometry.location).toEqual({ lat: 48.85341, lng: 2.3488 });
    expect(r.geometry.location_type).toBe('APPROXIMATE');
    expect(typeof r.place_id).toBe('string');
    const byType = (t: string) => r.address_components.find((c: { types: string[] }) => c.types.includes(t));
    expect(byType('locality').long_name).toBe('Paris');
    expect(byType('country')).toEqual({
      long_name: 'France',
      short_name: 'FR',
      types: ['country', 'political'],
    });
    expect(byType('administrative_area_level_1').long_name).toBe('Île-de-France');
    expect(b.html_attributions).toEqual([PARIS.attribution]);
  });

  it('uses a letter region code as short_name and shows the postcode', () => {
    const b = body(google.renderReverse({ filtersMatch: true }, NEW_YORK));
    const comps = b.results[0].address_components;
    expect(comps).toContainEqual({
      long_name: 'New York',
      short_name: 'NY',
      types: ['administrative_area_level_1', 'political'],
    });
    expect(comps).toContainEqual({ long_name: '10036', short_name: '10036', types: ['postal_code'] });
  });

  it('answers ZERO_RESULTS when the result_type filter excludes localities, or over open sea', () => {
    const state = parsed(google.parse(req(PATH, 'latlng=1,2&result_type=street_address'))).state;
    expect(body(google.renderReverse(state, PARIS))).toMatchObject({ status: 'ZERO_RESULTS', results: [] });
    expect(body(google.renderReverse({ filtersMatch: true }, OPEN_SEA)).status).toBe('ZERO_RESULTS');
  });
});

describe('google adapter: every gateway code as HTTP 200 + status (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s from the table', (code) => {
    const res = google.renderError(null, code, 'the detail', {});
    const row = GOOGLE_ERRORS[code];
    expect(res.status).toBe(row.http);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(body(res)).toEqual({ error_message: 'the detail', results: [], status: row.status });
    expect(row.status).not.toBe('OK');
    if (code !== 'not_found') expect(res.status).toBe(200);
  });

  it("renders the backend's no-result (not_found on a parsed request) as ZERO_RESULTS", () => {
    const res = google.renderError({ filtersMatch: true }, 'not_found', 'No result found.', {});
    expect(res.status).toBe(200);
    expect(body(res)).toMatchObject({ status: 'ZERO_RESULTS', results: [] });
  });

  it('maps the access refusals to the statuses the clients know', () => {
    expect(GOOGLE_ERRORS.invalid_key.status).toBe('REQUEST_DENIED');
    expect(GOOGLE_ERRORS.quota_exceeded.status).toBe('OVER_QUERY_LIMIT');
    expect(GOOGLE_ERRORS.no_credits.status).toBe('OVER_DAILY_LIMIT');
    expect(GOOGLE_ERRORS.invalid_parameter.status).toBe('INVALID_REQUEST');
    expect(body(google.renderError(null, 'invalid_key', '', {})).error_message).toBe(
      GOOGLE_ERRORS.invalid_key.message,
    );
  });
});

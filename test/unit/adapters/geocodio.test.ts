import { geocodio, GEOCODIO_ERRORS } from '../../../adapters/geocodio';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, NEW_YORK, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

describe('geocodio adapter: request translation', () => {
  it.each(['/v1/reverse', '/v1.7/reverse', '/v1.11/reverse', '/v2/reverse'])('serves %s', (path) => {
    expect(parsed(geocodio.parse(req(path, 'q=48.8584%2C2.2945&api_key=K'))).call).toEqual({
      kind: 'reverse',
      lat: 48.8584,
      lon: 2.2945,
    });
  });

  it.each(['q=48.8584', 'q=abc,1', 'q=1,200', '', 'q=1,2&q=1,2'])('refuses %s naming q', (query) => {
    expect(refused(geocodio.parse(req('/v1.7/reverse', query)))).toEqual({
      code: 'invalid_parameter',
      parameter: 'q',
    });
  });

  it('answers null for other paths and versions', () => {
    expect(geocodio.parse(req('/v3/reverse', 'q=1,2'))).toBeNull();
    expect(geocodio.parse(req('/v1.7/lists', 'q=x'))).toBeNull(); // /geocode is served (issue 11)
  });

  it('reads api_key from the query and Authorization: Bearer', () => {
    expect(geocodio.providerCredentials(req('/v1/reverse', `q=1,2&api_key=${SECRET}`))).toEqual([
      { position: 'query:api_key', value: SECRET },
    ]);
    expect(
      geocodio.providerCredentials(req('/v1/reverse', 'q=1,2', { authorization: `Bearer ${SECRET}` })),
    ).toEqual([{ position: 'header:authorization', value: SECRET }]);
    expect(geocodio.credentialParams).toEqual(['api_key']);
  });
});

describe('geocodio adapter: success rendering', () => {
  it('renders the result fields node-geocoder reads, with the country code and the source', () => {
    const r = body(geocodio.renderReverse({}, PARIS)).results[0];
    expect(r).toMatchObject({
      formatted_address: PARIS.displayName,
      location: { lat: 48.85341, lng: 2.3488 },
      address_components: { city: 'Paris', state: 'Île-de-France', country: 'FR' },
      source: PARIS.attribution,
    });
    expect(body(geocodio.renderReverse({}, NEW_YORK)).results[0].address_components).toMatchObject({
      state: 'NY',
      zip: '10036',
    });
    expect(body(geocodio.renderReverse({}, OPEN_SEA))).toEqual({ results: [] });
  });
});

describe('geocodio adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s as {"error"} with empty results', (code) => {
    const row = GEOCODIO_ERRORS[code];
    const states = code === 'not_found' ? [null] : [null, {}];
    for (const state of states) {
      const res = geocodio.renderError(state, code, 'the detail', {});
      expect(res.status).toBe(row.status);
      // `results: []` so node-geocoder geocodio resolves [] instead of throwing on `results.length`.
      expect(body(res)).toEqual({ error: 'the detail', results: [] });
      expect(body(geocodio.renderError(state, code, '', {}))).toEqual({ error: row.error, results: [] });
    }
  });

  it("renders the backend's no-result as 200 with no results and no error", () => {
    const res = geocodio.renderError({}, 'not_found', 'No result.', {});
    expect([res.status, body(res)]).toEqual([200, { results: [] }]);
  });

  it('uses 403 for keys and the daily maximum, 422 for bad input', () => {
    expect([
      GEOCODIO_ERRORS.invalid_key.status,
      GEOCODIO_ERRORS.quota_exceeded.status,
      GEOCODIO_ERRORS.invalid_parameter.status,
    ]).toEqual([403, 403, 422]);
  });
});

import { here, HERE_ERRORS } from '../../../adapters/here';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const LEGACY = '/6.2/reversegeocode.json';

describe('here adapter: request translation', () => {
  it.each([
    ['/v1/revgeocode', 'at=48.8584,2.2945&lang=en-US&apiKey=K', 'v7'],
    ['/v1/revgeocode', 'at=48.8584%2C2.2945&apikey=K', 'v7'],
    [
      LEGACY,
      'additionaldata=Country2%2Ctrue&gen=8&apiKey=K&pos=48.8584%2C2.2945&mode=trackPosition',
      'legacy',
    ],
    [LEGACY, 'prox=48.8584,2.2945,250&mode=retrieveAddresses', 'legacy'],
  ])('serves %s?%s', (path, query, api) => {
    const p = parsed(here.parse(req(path, query)));
    expect(p.call).toEqual({ kind: 'reverse', lat: 48.8584, lon: 2.2945 });
    expect(p.state).toEqual({ api });
  });

  it.each([
    ['/v1/revgeocode', 'at=48.8584', 'at'],
    ['/v1/revgeocode', 'at=48.8584,2.2945,250', 'at'],
    ['/v1/revgeocode', 'at=100,2', 'at'],
    ['/v1/revgeocode', 'q=Berlin', 'at'],
    [LEGACY, 'pos=a,b', 'pos'],
    [LEGACY, 'pos=1,2&pos=3,4', 'pos'],
  ])('refuses %s?%s naming %s', (path, query, parameter) => {
    expect(refused(here.parse(req(path, query)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  it('answers null for other paths', () => {
    // /v1/geocode and /6.2/geocode.json are served since issue 11 (forward-adapters-2.test.ts).
    expect(here.parse(req('/v1/autosuggest', 'q=x'))).toBeNull();
    expect(here.parse(req('/6.2/search.json', 'searchtext=x'))).toBeNull();
  });

  it('reads apiKey and apikey', () => {
    expect(here.providerCredentials(req('/v1/revgeocode', `at=1,2&apiKey=${SECRET}`))).toEqual([
      { position: 'query:apiKey', value: SECRET },
    ]);
    expect(here.providerCredentials(req('/v1/revgeocode', `at=1,2&apikey=${SECRET}`))).toEqual([
      { position: 'query:apikey', value: SECRET },
    ]);
    expect(here.credentialParams).toEqual(['apiKey', 'apikey']);
  });
});

describe('here adapter: success rendering', () => {
  it('renders a v7 item with an ISO alpha-3 country code', () => {
    const b = body(here.renderReverse({ api: 'v7' }, PARIS));
    expect(b.attribution).toBe(PARIS.attribution);
    expect(b.items[0]).toMatchObject({
      title: PARIS.displayName,
      resultType: 'locality',
      address: {
        label: PARIS.displayName,
        countryCode: 'FRA',
        countryName: 'France',
        state: 'Île-de-France',
        city: 'Paris',
      },
      position: { lat: 48.85341, lng: 2.3488 },
      distance: 4213,
    });
  });

  it('renders the legacy 6.2 Response.View the node-geocoder here provider parses', () => {
    const b = body(here.renderReverse({ api: 'legacy' }, PARIS));
    const result = b.Response.View[0].Result[0];
    expect(result.Location.DisplayPosition).toEqual({ Latitude: 48.85341, Longitude: 2.3488 });
    expect(result.Location.Address).toMatchObject({
      Label: PARIS.displayName,
      Country: 'FRA',
      City: 'Paris',
    });
    expect(result.Location.Address.AdditionalData).toEqual(
      expect.arrayContaining([
        { value: 'FR', key: 'Country2' },
        { value: 'France', key: 'CountryName' },
        { value: 'Île-de-France', key: 'StateName' },
      ]),
    );
  });

  it('answers no items over open sea', () => {
    expect(body(here.renderReverse({ api: 'v7' }, OPEN_SEA)).items).toEqual([]);
  });
});

describe('here adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s for v7 and legacy', (code) => {
    const row = HERE_ERRORS[code];
    for (const state of [null, { api: 'v7' as const }]) {
      const v7 = here.renderError(state, code, 'the detail', {});
      if (state && code === 'not_found') continue; // the backend's no-result (tested below)
      expect(v7.status).toBe(row.status);
      if (row.kind === 'auth') {
        expect(body(v7)).toEqual({ error: row.title, error_description: 'the detail' });
      } else {
        expect(body(v7)).toEqual({
          status: row.status,
          title: row.title,
          cause: 'the detail',
          action: '',
          correlationId: '',
        });
      }
    }
    const legacy = here.renderError({ api: 'legacy' }, code, 'd', {});
    if (code === 'not_found') return; // with a parsed request this is the backend's no-result (tested below)
    expect(legacy.status).toBe(row.status);
    // The legacy error keeps HERE's fields and adds the empty Response.View node-geocoder reads.
    expect(body(legacy)).toEqual(
      row.kind === 'auth'
        ? { error: row.title, error_description: 'd', Response: { View: [] } }
        : {
            _type: 'ns2:Error',
            type: 'ApplicationError',
            subtype: row.status === 400 ? 'InvalidInputData' : row.title.replace(/ /g, ''),
            Details: 'd',
            AdditionalData: [],
            Response: { View: [] },
          },
    );
  });

  it('renders auth refusals as HERE does and bad input as the legacy ApplicationError', () => {
    expect(body(here.renderError({ api: 'v7' }, 'invalid_key', 'apiKey invalid.', {}))).toEqual({
      error: 'Unauthorized',
      error_description: 'apiKey invalid.',
    });
    const legacy = here.renderError({ api: 'legacy' }, 'invalid_parameter', 'pos is required', {});
    expect(legacy.status).toBe(400);
    expect(body(legacy)).toMatchObject({
      type: 'ApplicationError',
      subtype: 'InvalidInputData',
      Details: 'pos is required',
    });
    expect(HERE_ERRORS.quota_exceeded).toEqual({ status: 429, kind: 'auth', title: 'Too Many Requests' });
  });

  it("renders the backend's no-result as empty items", () => {
    const res = here.renderError({ api: 'v7' }, 'not_found', 'No result.', {});
    expect([res.status, body(res)]).toEqual([200, { items: [] }]);
    const legacy = here.renderError({ api: 'legacy' }, 'not_found', 'No result.', {});
    expect([legacy.status, body(legacy)]).toEqual([200, { Response: { MetaInfo: {}, View: [] } }]);
  });

  it('answers a legacy invalid key and exhausted allowance with 401/429 and an empty Response.View', () => {
    const invalid = here.renderError({ api: 'legacy' }, 'invalid_key', 'apiKey invalid.', {});
    expect([invalid.status, body(invalid)]).toEqual([
      401,
      { error: 'Unauthorized', error_description: 'apiKey invalid.', Response: { View: [] } },
    ]);
    const exhausted = here.renderError({ api: 'legacy' }, 'quota_exceeded', 'Daily quota used.', {});
    expect([exhausted.status, body(exhausted).error, body(exhausted).Response]).toEqual([
      429,
      'Too Many Requests',
      { View: [] },
    ]);
  });
});

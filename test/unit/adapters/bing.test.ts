import { bing, BING_ERRORS } from '../../../adapters/bing';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, NEW_YORK, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const P = '/REST/v1/Locations';

describe('bing adapter: request translation', () => {
  it.each([
    [`${P}/48.8584,2.2945`, 'key=K'],
    [`${P}/48.8584,2.2945`, 'key=K&o=json&includeNeighborhood=1'],
    ['/rest/v1/locations/48.8584,2.2945', 'Key=K'],
  ])('serves %s?%s', (path, query) => {
    expect(parsed(bing.parse(req(path, query))).call).toEqual({ kind: 'reverse', lat: 48.8584, lon: 2.2945 });
  });

  it.each([
    [`${P}/48.8584`, '', 'point'],
    [`${P}/100,2`, '', 'point'],
    [`${P}/1,2`, 'o=xml', 'o'],
  ])('refuses %s?%s naming %s', (path, query, parameter) => {
    expect(refused(bing.parse(req(path, query)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  it('answers null for other paths and reads key as query:key', () => {
    expect(bing.parse(req('/REST/v1/Routes', 'wp.0=x'))).toBeNull(); // /Locations?q= is served (issue 11)
    expect(bing.providerCredentials(req(`${P}/1,2`, `key=${SECRET}`))).toEqual([
      { position: 'query:key', value: SECRET },
    ]);
  });
});

describe('bing adapter: success rendering', () => {
  it('renders the resource node-geocoder virtualearth reads and the attribution as copyright', () => {
    const state = parsed(bing.parse(req(`${P}/48.8584,2.2945`))).state;
    const b = body(bing.renderReverse(state, PARIS));
    expect(b).toMatchObject({
      authenticationResultCode: 'ValidCredentials',
      statusCode: 200,
      statusDescription: 'OK',
      copyright: PARIS.attribution,
    });
    const r = b.resourceSets[0].resources[0];
    expect(r.point.coordinates).toEqual([48.85341, 2.3488]);
    expect(r.address).toMatchObject({
      locality: 'Paris',
      countryRegion: 'France',
      countryRegionIso2: 'FR',
      formattedAddress: PARIS.displayName,
    });
    expect(r.entityType).toBe('PopulatedPlace');
  });

  it('honours includeEntityTypes and answers an empty set over open sea', () => {
    const country = parsed(bing.parse(req(`${P}/1,2`, 'includeEntityTypes=CountryRegion'))).state;
    expect(body(bing.renderReverse(country, NEW_YORK)).resourceSets[0].resources[0]).toMatchObject({
      entityType: 'CountryRegion',
      name: 'United States',
    });
    const address = parsed(bing.parse(req(`${P}/1,2`, 'includeEntityTypes=Address'))).state;
    expect(body(bing.renderReverse(address, PARIS)).resourceSets[0].resources).toEqual([]);
    expect(body(bing.renderReverse({ level: 'locality' }, OPEN_SEA)).resourceSets[0].estimatedTotal).toBe(0);
  });
});

describe('bing adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))(
    'renders %s in the envelope with errorDetails and one empty resource set',
    (code) => {
      const row = BING_ERRORS[code];
      const states = code === 'not_found' ? [null] : [null, { level: 'locality' as const }];
      for (const state of states) {
        const res = bing.renderError(state, code, 'the detail', {});
        expect(res.status).toBe(row.status);
        // resourceSets[0] is present (empty) so node-geocoder virtualearth resolves [] instead of throwing.
        expect(body(res)).toEqual({
          authenticationResultCode: row.auth,
          copyright: '',
          statusCode: row.status,
          statusDescription: expect.any(String),
          errorDetails: ['the detail'],
          resourceSets: [{ estimatedTotal: 0, resources: [] }],
        });
      }
    },
  );

  it("renders the backend's no-result as 200 with an empty resource set", () => {
    const res = bing.renderError({ level: 'locality' }, 'not_found', 'No result.', {});
    expect([res.status, body(res).resourceSets, body(res).errorDetails]).toEqual([
      200,
      [{ estimatedTotal: 0, resources: [] }],
      undefined,
    ]);
  });

  it('uses the documented authentication results', () => {
    expect(BING_ERRORS.invalid_key).toEqual({ status: 401, auth: 'InvalidCredentials' });
    expect(BING_ERRORS.missing_key.auth).toBe('NoCredentials');
    expect(BING_ERRORS.quota_exceeded.status).toBe(429);
  });
});

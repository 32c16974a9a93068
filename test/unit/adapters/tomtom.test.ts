import { tomtom, TOMTOM_ERRORS } from '../../../adapters/tomtom';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

const P = '/search/2/reverseGeocode';

describe('tomtom adapter: request translation', () => {
  it.each([`${P}/48.8584,2.2945.json`, `${P}/48.8584%2C2.2945.json`])('serves %s', (path) => {
    expect(parsed(tomtom.parse(req(path, 'key=K&radius=100'))).call).toEqual({
      kind: 'reverse',
      lat: 48.8584,
      lon: 2.2945,
    });
  });

  it.each([
    [`${P}/48.8584,2.2945.xml`, 'ext'],
    [`${P}/48.8584.json`, 'position'],
    [`${P}/91,2.json`, 'position'],
    [`${P}/1,x.json`, 'position'],
  ])('refuses %s naming %s', (path, parameter) => {
    expect(refused(tomtom.parse(req(path)))).toEqual({ code: 'invalid_parameter', parameter });
  });

  it('answers null for other paths and reads key as query:key', () => {
    expect(tomtom.parse(req('/search/2/search/Paris.json'))).toBeNull(); // /geocode/ is served (issue 11)
    expect(tomtom.providerCredentials(req(`${P}/1,2.json`, `key=${SECRET}`))).toEqual([
      { position: 'query:key', value: SECRET },
    ]);
  });
});

describe('tomtom adapter: success rendering', () => {
  it('renders addresses[] with the address fields and position "lat,lon"', () => {
    const b = body(tomtom.renderReverse({}, PARIS));
    expect(b.summary.numResults).toBe(1);
    expect(b.attribution).toBe(PARIS.attribution);
    expect(b.addresses[0]).toMatchObject({
      address: {
        municipality: 'Paris',
        countryCode: 'FR',
        country: 'France',
        countryCodeISO3: 'FRA',
        freeformAddress: PARIS.displayName,
      },
      position: '48.85341,2.3488',
    });
    expect(body(tomtom.renderReverse({}, OPEN_SEA)).addresses).toEqual([]);
  });
});

describe('tomtom adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))(
    'renders %s as {errorText, detailedError, httpStatusCode}',
    (code) => {
      const row = TOMTOM_ERRORS[code];
      const res = tomtom.renderError(null, code, 'the detail', {});
      expect(res.status).toBe(row.status);
      expect(body(res)).toEqual({
        errorText: 'the detail',
        detailedError: { code: row.code, message: 'the detail' },
        httpStatusCode: row.status,
      });
    },
  );

  it('uses 403 for keys and quota, and 596 for unknown paths, as TomTom does', () => {
    expect([
      TOMTOM_ERRORS.invalid_key.status,
      TOMTOM_ERRORS.quota_exceeded.status,
      TOMTOM_ERRORS.not_found.status,
    ]).toEqual([403, 403, 596]);
  });
});

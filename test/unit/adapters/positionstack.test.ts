import { positionstack, POSITIONSTACK_ERRORS } from '../../../adapters/positionstack';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, OPEN_SEA, PARIS, parsed, refused, req, SECRET } from './fixtures';

describe('positionstack adapter: request translation', () => {
  it.each(['query=48.8584,2.2945&access_key=K', 'query=48.8584%2C2.2945&limit=1&output=json'])(
    'reads %s',
    (query) => {
      expect(parsed(positionstack.parse(req('/v1/reverse', query))).call).toEqual({
        kind: 'reverse',
        lat: 48.8584,
        lon: 2.2945,
      });
    },
  );

  it.each([
    ['query=Paris', 'query'],
    ['query=1,999', 'query'],
    ['', 'query'],
    ['query=1,2&output=xml', 'output'],
  ])('refuses %s naming %s', (query, parameter) => {
    expect(refused(positionstack.parse(req('/v1/reverse', query)))).toEqual({
      code: 'invalid_parameter',
      parameter,
    });
  });

  it('answers null for other paths and reads access_key', () => {
    expect(positionstack.parse(req('/v1/batch', 'query=x'))).toBeNull(); // /v1/forward is served (issue 11)
    expect(positionstack.providerCredentials(req('/v1/reverse', `access_key=${SECRET}`))).toEqual([
      { position: 'query:access_key', value: SECRET },
    ]);
    expect(positionstack.credentialParams).toEqual(['access_key']);
  });
});

describe('positionstack adapter: success rendering', () => {
  it('renders data[] with an alpha-3 country code, continent and label', () => {
    const b = body(positionstack.renderReverse({}, PARIS));
    expect(b.attribution).toBe(PARIS.attribution);
    expect(b.data[0]).toMatchObject({
      latitude: 48.85341,
      longitude: 2.3488,
      type: 'locality',
      locality: 'Paris',
      region: 'Île-de-France',
      country: 'France',
      country_code: 'FRA',
      continent: 'Europe',
      label: PARIS.displayName,
      distance: 4213,
    });
    expect(body(positionstack.renderReverse({}, OPEN_SEA)).data).toEqual([]);
  });
});

describe('positionstack adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s as {error:{code,message}}', (code) => {
    const row = POSITIONSTACK_ERRORS[code];
    const res = positionstack.renderError(null, code, 'the detail', {});
    expect(res.status).toBe(row.status);
    expect(body(res).error).toMatchObject({ code: row.code, message: 'the detail' });
  });

  it('names the field in context for validation errors', () => {
    const res = positionstack.renderError(null, 'invalid_parameter', 'query is required', {
      parameter: 'query',
    });
    expect(body(res)).toEqual({
      error: {
        code: 'validation_error',
        message: 'query is required',
        context: { query: ['query is required'] },
      },
    });
    expect(POSITIONSTACK_ERRORS.invalid_key).toEqual({ status: 401, code: 'invalid_access_key' });
  });
});

/** Issue 16 item 1: the new forms answer in the provider's own shape (Google XML, ipinfo single fields, slashes). */
import { google } from '../../../adapters/google';
import { ipinfo } from '../../../adapters/ipinfo';
import { mapbox } from '../../../adapters/mapbox';
import { GOOGLE_DNS, OPEN_SEA, PARIS, parsed, refused, req } from './fixtures';

describe("google /maps/api/geocode/xml (Google's XML output)", () => {
  const state = parsed(google.parse(req('/maps/api/geocode/xml', 'latlng=48.8584,2.2945&key=K'))).state;

  it('renders <GeocodeResponse> with status, types, address components and geometry', () => {
    const res = google.renderReverse(state, PARIS);
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/xml; charset=utf-8']);
    expect(res.body).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<GeocodeResponse><status>OK<\/status><result>/,
    );
    expect(res.body).toContain('<type>locality</type><type>political</type>');
    expect(res.body).toContain(`<formatted_address>${PARIS.displayName}</formatted_address>`);
    expect(res.body).toContain('<address_component><long_name>France</long_name><short_name>FR</short_name>');
    expect(res.body).toContain('<location><lat>48.85341</lat><lng>2.3488</lng></location>');
  });

  it('answers no result as ZERO_RESULTS and refusals as status + error_message, all in XML', () => {
    expect(google.renderReverse(state, OPEN_SEA).body).toContain('<status>ZERO_RESULTS</status>');
    const denied = google.renderError(state, 'invalid_key', 'The provided API key is invalid.', {});
    expect([denied.status, denied.headers['content-type']]).toEqual([200, 'text/xml; charset=utf-8']);
    expect(denied.body).toContain(
      '<status>REQUEST_DENIED</status><error_message>The provided API key is invalid.</error_message>',
    );
  });

  it('keeps the xml output for malformed requests', () => {
    const bad = google.parse(req('/maps/api/geocode/xml', 'latlng=abc'));
    expect(refused(bad).parameter).toBe('latlng');
    const state2 = bad !== null && !bad.ok ? (bad.state ?? null) : null;
    expect(google.renderError(state2, 'invalid_parameter', 'x', {}).body).toContain(
      '<status>INVALID_REQUEST</status>',
    );
  });
});

describe('ipinfo single-field forms', () => {
  it.each([
    ['/8.8.8.8/country', '8.8.8.8', 'US\n'],
    ['/8.8.8.8/city', '8.8.8.8', 'Mountain View\n'],
    ['/8.8.8.8/loc', '8.8.8.8', '37.4056,-122.0775\n'],
    ['/8.8.8.8/org', '8.8.8.8', 'AS15169 Google LLC\n'],
    ['/8.8.8.8/postal', '8.8.8.8', 'undefined\n'],
    ['/ip', null, '8.8.8.8\n'],
    ['/country/', null, 'US\n'],
  ])('%s answers the field as text', (path, ip, text) => {
    const p = parsed(ipinfo.parse(req(path)));
    expect(p.call).toEqual({ kind: 'ipv4', ip });
    const res = ipinfo.renderIp(p.state, GOOGLE_DNS);
    expect([res.status, res.headers['content-type'], res.body]).toEqual([
      200,
      'text/plain; charset=utf-8',
      text,
    ]);
  });

  it('refuses a bad address in a field form and ignores unknown fields', () => {
    expect(refused(ipinfo.parse(req('/999.1.1.1/country'))).code).toBe('invalid_parameter');
    expect(ipinfo.parse(req('/8.8.8.8/unknownfield'))).toBeNull();
  });
});

describe('trailing slash and encoded comma (the Mapbox case of issue 16)', () => {
  it('parses /geocoding/v5/mapbox.places/2.2945%2C48.8584.json/ as the pipeline decodes it', () => {
    const path = decodeURIComponent('/geocoding/v5/mapbox.places/2.2945%2C48.8584.json/');
    expect(parsed(mapbox.parse(req(path, 'access_token=K'))).call).toEqual({
      kind: 'reverse',
      lat: 48.8584,
      lon: 2.2945,
    });
  });
});

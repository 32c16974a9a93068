import { ipstack, IPSTACK_ERRORS } from '../../../adapters/ipstack';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, GOOGLE_DNS, parsed, refused, req, SECRET } from './fixtures';

describe('ipstack adapter: request translation', () => {
  it.each([
    ['/8.8.8.8', '8.8.8.8'],
    ['/check', null],
  ])('serves %s', (path, ip) => {
    expect(parsed(ipstack.parse(req(path, 'access_key=K&fields=main'))).call).toEqual({ kind: 'ipv4', ip });
  });

  it.each([
    ['/2001:db8::1', '', 'ipv4_required', 'ip'],
    ['/1.2.3', '', 'invalid_parameter', 'ip'],
    ['/8.8.8.8,1.1.1.1', '', 'invalid_parameter', 'ip'],
    ['/8.8.8.8', 'output=xml', 'invalid_parameter', 'output'],
  ])('refuses %s?%s with %s naming %s', (path, query, code, parameter) => {
    expect(refused(ipstack.parse(req(path, query)))).toEqual({ code, parameter });
  });

  it('answers null for deeper paths and reads access_key', () => {
    expect(ipstack.parse(req('/a/b'))).toBeNull();
    expect(ipstack.providerCredentials(req('/check', `access_key=${SECRET}`))).toEqual([
      { position: 'query:access_key', value: SECRET },
    ]);
  });
});

describe('ipstack adapter: success rendering', () => {
  it('renders the documented fields', () => {
    expect(body(ipstack.renderIp({}, GOOGLE_DNS))).toMatchObject({
      ip: '8.8.8.8',
      type: 'ipv4',
      continent_code: 'NA',
      continent_name: 'North America',
      country_code: 'US',
      country_name: 'United States',
      region_name: 'California',
      city: 'Mountain View',
      latitude: 37.4056,
      longitude: -122.0775,
      location: { calling_code: '1', is_eu: false, country_flag_emoji: '🇺🇸' },
      connection: { asn: 15169, isp: 'Google LLC' },
      attribution: GOOGLE_DNS.attribution,
    });
  });
});

describe('ipstack adapter: every gateway code as HTTP 200 + success:false (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s', (code) => {
    const row = IPSTACK_ERRORS[code];
    const res = ipstack.renderError(null, code, 'the detail', {});
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(body(res)).toEqual({
      success: false,
      error: { code: row.code, type: row.type, info: `${row.info} the detail` },
    });
  });

  it("uses ipstack's codes for keys, quota and bad IPs", () => {
    expect(IPSTACK_ERRORS.missing_key.type).toBe('missing_access_key');
    expect(IPSTACK_ERRORS.invalid_key).toMatchObject({ code: 101, type: 'invalid_access_key' });
    expect(IPSTACK_ERRORS.quota_exceeded).toMatchObject({ code: 104, type: 'usage_limit_reached' });
    expect(IPSTACK_ERRORS.invalid_parameter).toMatchObject({ code: 106, type: 'invalid_ip_address' });
  });
});

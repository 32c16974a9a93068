import { ipinfo, IPINFO_ERRORS } from '../../../adapters/ipinfo';
import { ALL_GATEWAY_CODES } from '../../../gateway/core/errors';
import { body, GOOGLE_DNS, parsed, refused, req, SECRET } from './fixtures';

describe('ipinfo adapter: request translation', () => {
  it.each([
    ['/8.8.8.8/json', '8.8.8.8', 'standard'],
    ['/8.8.8.8', '8.8.8.8', 'standard'],
    ['/json', null, 'standard'],
    ['/lite/8.8.8.8', '8.8.8.8', 'lite'],
    ['/lite/me', null, 'lite'],
  ])('serves %s', (path, ip, api) => {
    const p = parsed(ipinfo.parse(req(path)));
    expect(p.call).toEqual({ kind: 'ipv4', ip });
    expect(p.state).toEqual({ api });
  });

  it.each([
    ['/2001:db8::1/json', 'ipv4_required'],
    ['/lite/2001:4860:4860::8888', 'ipv4_required'],
    ['/8.8.8.256/json', 'invalid_parameter'],
    ['/08.8.8.8', 'invalid_parameter'],
    ['/google.com/json', 'invalid_parameter'],
  ])('refuses %s with %s naming ip', (path, code) => {
    expect(refused(ipinfo.parse(req(path)))).toEqual({ code, parameter: 'ip' });
  });

  it('answers null for unknown paths and method_not_allowed for POST', () => {
    expect(ipinfo.parse(req('/'))).toBeNull();
    expect(ipinfo.parse(req('/8.8.8.8/json/extra'))).toBeNull();
    expect(refused(ipinfo.parse(req('/json', '', {}, 'POST'))).code).toBe('method_not_allowed');
  });

  it('reads token from the query and from Authorization: Bearer', () => {
    expect(ipinfo.providerCredentials(req('/json', `token=${SECRET}`))).toEqual([
      { position: 'query:token', value: SECRET },
    ]);
    expect(ipinfo.providerCredentials(req('/json', '', { authorization: `Bearer ${SECRET}` }))).toEqual([
      { position: 'header:authorization', value: SECRET },
    ]);
    expect(ipinfo.providerCredentials(req('/json', '', { authorization: 'Basic abc' }))).toEqual([]);
    expect(ipinfo.credentialParams).toEqual(['token']);
  });
});

describe('ipinfo adapter: success rendering', () => {
  it('renders the standard layout node-ipinfo post-processes (country is the code)', () => {
    const b = body(ipinfo.renderIp({ api: 'standard' }, GOOGLE_DNS));
    expect(b).toEqual({
      ip: '8.8.8.8',
      city: 'Mountain View',
      region: 'California',
      country: 'US',
      loc: '37.4056,-122.0775',
      org: 'AS15169 Google LLC',
      timezone: 'America/Los_Angeles',
      attribution: GOOGLE_DNS.attribution,
    });
  });

  it('renders the Lite layout with the continent', () => {
    expect(body(ipinfo.renderIp({ api: 'lite' }, GOOGLE_DNS))).toEqual({
      ip: '8.8.8.8',
      asn: 'AS15169',
      as_name: 'Google LLC',
      country_code: 'US',
      country: 'United States',
      continent_code: 'NA',
      continent: 'North America',
      attribution: GOOGLE_DNS.attribution,
    });
  });

  it.each(['127.0.0.1', '10.1.2.3', '192.0.2.1'])(
    'answers the non-public %s as {ip, bogon:true}, as ipinfo does',
    (ip) => {
      expect(body(ipinfo.renderIp({ api: 'standard' }, { ...GOOGLE_DNS, ip }))).toEqual({ ip, bogon: true });
    },
  );

  it('omits unknown fields instead of sending null', () => {
    const b = body(
      ipinfo.renderIp({ api: 'standard' }, { ...GOOGLE_DNS, city: null, lat: null, lon: null, asn: null }),
    );
    expect(b.city).toBeUndefined();
    expect(b.loc).toBeUndefined();
    expect(b.org).toBe('Google LLC');
  });
});

describe('ipinfo adapter: every gateway code (D24)', () => {
  it.each(ALL_GATEWAY_CODES.map((c) => [c]))('renders %s as {status, error:{title,message}}', (code) => {
    const row = IPINFO_ERRORS[code];
    const res = ipinfo.renderError(null, code, 'the detail', {});
    expect(res.status).toBe(row.status);
    expect(body(res)).toEqual({ status: row.status, error: { title: row.title, message: 'the detail' } });
  });

  it('uses 429 for quota (node-ipinfo ApiLimitError) and 404 Wrong ip for bad addresses', () => {
    expect(IPINFO_ERRORS.quota_exceeded.status).toBe(429);
    expect(IPINFO_ERRORS.invalid_parameter).toEqual({ status: 404, title: 'Wrong ip' });
    expect(IPINFO_ERRORS.invalid_key).toEqual({ status: 403, title: 'Unknown token' });
  });
});

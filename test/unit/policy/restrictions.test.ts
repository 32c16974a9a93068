/** Key restrictions (D29): the pattern syntax, its validation with field-named errors, and the matcher. */
import ipaddr from 'ipaddr.js';
import {
  breach,
  normaliseRestrictions,
  parseReferrerPattern,
  RestrictionError,
  testAddress,
  testPage,
  type KeyRestrictions,
} from '../../../gateway/policy/restrictions';

const fieldOf = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    if (err instanceof RestrictionError) return err.field;
    throw err;
  }
  throw new Error('did not throw');
};

describe('referrer pattern syntax', () => {
  it.each([
    ['example.com', 'example.com'],
    ['HTTPS://Example.com', 'https://example.com'],
    ['http://localhost:3000', 'http://localhost:3000'],
    ['*.example.com', '*.example.com'],
    ['https://*.example.com:*/maps/*', 'https://*.example.com:*/maps/'],
    ['https://example.com/', 'https://example.com'],
    ['https://example.com/*', 'https://example.com'],
    ['192.0.2.7:8080', '192.0.2.7:8080'],
    ['http://[2001:DB8::1]', 'http://[2001:db8::1]'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
  ])('%s is canonical as %s', (input, text) => {
    expect(parseReferrerPattern(input).text).toBe(text);
  });

  it.each([
    ['', 'must not be empty'],
    ['ftp://example.com', 'the scheme must be http or https'],
    ['exa*mple.com', 'only as its first label'],
    ['*.com', 'at least two labels'],
    ['*', 'only as its first label'],
    ['example.com/a*b', 'only at its end'],
    ['example.com:0', 'the port must be 1 to 65535'],
    ['example.com:70000', 'the port must be 1 to 65535'],
    ['example.com?x=1', 'query'],
    ['bad_host.com', 'not a valid host name label'],
    ['a..b', 'empty label'],
    ['https://[zz::1]', 'bracketed IPv6'],
    ['bücher.example', 'not a valid host name label'],
    ['exa mple.com', 'spaces'],
  ])('refuses %j (%s)', (input, message) => {
    expect(() => parseReferrerPattern(input)).toThrow(message);
  });

  it('names the field of the entry at fault, and bounds the lists', () => {
    expect(fieldOf(() => normaliseRestrictions({ referrers: ['ok.example', 'ftp://x'] }))).toBe(
      'referrers[1]',
    );
    expect(fieldOf(() => normaliseRestrictions({ cidrs: ['203.0.113.0/24', '300.1.1.1'] }))).toBe('cidrs[1]');
    expect(fieldOf(() => normaliseRestrictions({ referrers: Array(21).fill('a.example') }))).toBe(
      'referrers',
    );
    expect(fieldOf(() => normaliseRestrictions({ cidrs: Array(51).fill('192.0.2.1') }))).toBe('cidrs');
    expect(fieldOf(() => normaliseRestrictions({ referrers: 'a.example' }))).toBe('referrers');
    expect(fieldOf(() => normaliseRestrictions({ referrers: [7] }))).toBe('referrers[0]');
    expect(fieldOf(() => normaliseRestrictions({ origins: [] }))).toBe('origins');
    expect(fieldOf(() => normaliseRestrictions([]))).toBe('restrictions');
  });

  it('canonicalises CIDRs (network address, RFC 5952, IPv4-mapped as IPv4) and drops duplicates', () => {
    expect(
      normaliseRestrictions({
        cidrs: ['203.0.113.9/24', '203.0.113.0/24', '2001:DB8:0::5/48', '::ffff:192.0.2.1'],
      }),
    ).toEqual({ referrers: [], cidrs: ['203.0.113.0/24', '2001:db8::/48', '192.0.2.1/32'] });
  });
});

describe('matching a request (Origin, else Referer; CIDRs)', () => {
  const r: KeyRestrictions = normaliseRestrictions({
    referrers: ['https://*.example.com', 'http://localhost:3000', 'shop.example.org/checkout/'],
    cidrs: [],
  });
  const addr = ipaddr.parse('203.0.113.5');
  const ok = (headers: { origin?: string; referer?: string }) => breach(r, headers, addr) === null;

  it.each([
    [{ origin: 'https://app.example.com' }, true],
    [{ origin: 'https://a.b.example.com' }, true],
    [{ origin: 'https://example.com' }, false], // *. needs a label in front
    [{ origin: 'http://app.example.com' }, false], // scheme given: https only
    [{ origin: 'https://app.example.com:8443' }, false], // no port: the default only
    [{ origin: 'https://evil-example.com' }, false],
    [{ origin: 'https://app.example.com.evil.net' }, false],
    [{ origin: 'http://localhost:3000' }, true],
    [{ origin: 'http://localhost:3001' }, false],
    [{ origin: 'http://shop.example.org' }, true], // an Origin has no path: the prefix is not checked
    [{ origin: 'https://shop.example.org' }, true], // no scheme in the pattern: either
    [{ referer: 'https://shop.example.org/checkout/pay?x=1' }, true],
    [{ referer: 'https://shop.example.org/account' }, false],
    [{ referer: 'https://app.example.com/any/page' }, true],
    [{ origin: 'https://evil.net', referer: 'https://app.example.com/' }, false], // Origin wins
    [{ origin: 'null' }, false],
    [{ referer: 'not a url' }, false],
    [{}, false],
  ])('%j → allowed %s', (headers, allowed) => {
    expect(ok(headers)).toBe(allowed);
  });

  it('checks the client address against the CIDRs, both lists when both are set', () => {
    const both = normaliseRestrictions({
      referrers: ['example.com'],
      cidrs: ['198.51.100.0/24', '2001:db8::/32'],
    });
    const page = { origin: 'https://example.com' };
    expect(breach(both, page, ipaddr.parse('198.51.100.200'))).toBeNull();
    expect(breach(both, page, ipaddr.parse('2001:db8:5::1'))).toBeNull();
    expect(breach(both, page, ipaddr.parse('198.51.101.1'))).toMatch(/address/);
    expect(breach(both, { origin: 'https://other.com' }, ipaddr.parse('198.51.100.1'))).toMatch(/web page/);
    expect(breach(both, {}, ipaddr.parse('198.51.100.1'))).toMatch(/no Origin or Referer/);
  });
});

describe('the live tester (same matcher)', () => {
  const r = normaliseRestrictions({
    referrers: ['https://*.example.com', 'example.org/app/'],
    cidrs: ['203.0.113.0/24'],
  });
  it('says which pattern matches an origin or a URL, and why not', () => {
    expect(testPage(r, 'https://www.example.com')).toMatchObject({ allowed: true, index: 0 });
    expect(testPage(r, 'https://example.org/app/x')).toMatchObject({ allowed: true, index: 1 });
    expect(testPage(r, 'https://example.org/other')).toMatchObject({ allowed: false, index: null });
    expect(testPage(r, 'https://example.org')).toMatchObject({ allowed: true, index: 1 }); // an origin
    expect(testPage(r, 'nonsense').reason).toMatch(/Not an http/);
  });
  it('says which block holds an address', () => {
    expect(testAddress(r, '203.0.113.9')).toMatchObject({ allowed: true, index: 0, rule: '203.0.113.0/24' });
    expect(testAddress(r, '192.0.2.1')).toMatchObject({ allowed: false });
    expect(testAddress(r, 'x').reason).toMatch(/Not an IPv4/);
    expect(testAddress({ referrers: [], cidrs: [] }, '192.0.2.1')).toMatchObject({
      allowed: true,
      index: null,
    });
  });
});

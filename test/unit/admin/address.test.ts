import { normaliseWhitelistAddress } from '../../../gateway/admin/address';
import { AdminProblem } from '../../../gateway/admin/problem';

const norm = (s: string): string => normaliseWhitelistAddress(s, 64);

describe('whitelist addresses (D18)', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7/32'], // TEST-NET-3 is allowed (documentation range, used by tests)
    ['203.0.113.7/32', '203.0.113.7/32'],
    ['8.8.8.8', '8.8.8.8/32'],
    ['::ffff:203.0.113.9', '203.0.113.9/32'], // IPv4-mapped IPv6 is the IPv4 address (D3)
    ['::ffff:203.0.113.9/128', '203.0.113.9/32'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1/128'],
    ['2001:db8:1:2::/64', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::5/64', '2001:db8:1:2::/64'], // host bits cleared
    ['2001:db8:1:2:3::/80', '2001:db8:1:2:3::/80'],
    [' 2a00:1450:4001::/64 ', '2a00:1450:4001::/64'],
  ])('accepts %s as %s', (input, cidr) => {
    expect(norm(input)).toBe(cidr);
  });

  it.each([
    ['an IPv6 block larger than /64', '2001:db8::/63'],
    ['an IPv6 /0', '::/0'],
    ['an IPv4 block', '203.0.113.0/24'],
    ['a prefix past 128', '2001:db8::/129'],
    ['a non-numeric prefix', '2001:db8::/abc'],
    ['an abbreviated IPv4 address', '127.1'],
    ['a hex IPv4 address', '0x7f000001'],
    ['a zone id', 'fe80::1%eth0'],
    ['a host name', 'example.com'],
    ['empty', ''],
    ['loopback', '127.0.0.1'],
    ['IPv6 loopback', '::1'],
    ['private 10/8', '10.1.2.3'],
    ['private 192.168/16', '192.168.0.10'],
    ['carrier-grade NAT', '100.64.1.1'],
    ['link-local', '169.254.0.1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 unique local', 'fd00::1'],
    ['multicast', '224.0.0.1'],
    ['IPv6 multicast', 'ff02::1'],
    ['unspecified', '0.0.0.0'],
    ['IPv6 unspecified', '::'],
    ['broadcast', '255.255.255.255'],
    ['an IPv4-mapped private address', '::ffff:10.0.0.1'],
  ])('refuses %s (%s) with 400 naming address', (_name, input) => {
    let err: unknown;
    try {
      norm(input);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AdminProblem);
    expect((err as AdminProblem).status).toBe(400);
    expect((err as AdminProblem).parameter).toBe('address');
  });

  it('honours a configured smallest IPv6 prefix', () => {
    expect(normaliseWhitelistAddress('2001:db8::/56', 48)).toBe('2001:db8::/56');
    expect(() => normaliseWhitelistAddress('2001:db8::/64', 96)).toThrow(AdminProblem);
  });
});

/** D3: the client address (peer, trusted proxies, IPv4-mapped) and counting units (D4, D6). */
import { addressUnit, parseAddress, parseCidr, type Cidr } from '../../../gateway/net/address';
import { clientAddress, InvalidForwarded } from '../../../gateway/net/client-address';

const trust = (...c: string[]): Cidr[] => c.map((s) => parseCidr(s) as Cidr);

describe('client address (D3)', () => {
  test('ignores X-Forwarded-For without trustProxy', () => {
    expect(clientAddress('198.51.100.1', { 'x-forwarded-for': '203.0.113.9' }, [])?.toString()).toBe(
      '198.51.100.1',
    );
  });
  test('ignores X-Forwarded-For from an untrusted peer', () => {
    const r = clientAddress('198.51.100.1', { 'x-forwarded-for': '203.0.113.9' }, trust('127.0.0.1/32'));
    expect(r?.toString()).toBe('198.51.100.1');
  });
  test('takes the right-most untrusted address from a trusted peer', () => {
    const h = { 'x-forwarded-for': '1.1.1.1, 203.0.113.9, 10.0.0.2' };
    expect(clientAddress('127.0.0.1', h, trust('127.0.0.1/32', '10.0.0.0/8'))?.toString()).toBe(
      '203.0.113.9',
    );
  });
  test('reads Forwarded: for= when there is no X-Forwarded-For', () => {
    const h = { forwarded: 'for="[2001:db8::7]:443";proto=https' };
    // D3a: Forwarded is read when the operator names it (trustProxyHeader: forwarded).
    expect(clientAddress('127.0.0.1', h, trust('127.0.0.1'), 'forwarded')?.toString()).toBe('2001:db8::7');
  });
  test('a malformed first untrusted entry is refused, never the proxy address (D3a supersedes D3)', () => {
    const h = { 'x-forwarded-for': '203.0.113.9, garbage' };
    expect(clientAddress('127.0.0.1', h, trust('127.0.0.1/32'))).toBeInstanceOf(InvalidForwarded);
  });
  test('a link-local peer with a zone id is its address', () => {
    expect(clientAddress('fe80::1%eth0', {}, [])?.toString()).toBe('fe80::1');
  });
  test('IPv4-mapped IPv6 peer is the IPv4 address', () => {
    expect(clientAddress('::ffff:192.0.2.4', {}, [])?.toString()).toBe('192.0.2.4');
  });
});

describe('address parsing and units', () => {
  test.each(['01.2.3.4', '1.2.3', '0x7f.0.0.1', 'fe80::1%eth0', ''])('refuses %j', (s) => {
    expect(parseAddress(s)).toBeNull();
  });
  test.each([
    ['203.0.113.7', 32, 64, '203.0.113.7/32'],
    ['203.0.113.7', 24, 64, '203.0.113.0/24'],
    ['2001:db8:abcd:12:1:2:3:4', 32, 64, '2001:db8:abcd:12::/64'],
    ['2001:db8:abcd:12:1:2:3:4', 32, 40, '2001:db8:ab00::/40'],
  ])('%s under /%i, /%i is %s', (a, v4, v6, unit) => {
    expect(addressUnit(parseAddress(a) as NonNullable<ReturnType<typeof parseAddress>>, v4, v6)).toBe(unit);
  });
});

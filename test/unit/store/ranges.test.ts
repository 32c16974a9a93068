/** Whitelist ranges (D18) and address parsing (D3) shared by both stores. */
import { addressKey, cidrRange, parseAddress } from '../../../gateway/store/ranges';

describe('cidrRange', () => {
  it.each([
    ['203.0.113.7/32', '203.0.113.7/32', 4, 'cb007107', 'cb007107'],
    ['203.0.113.7', '203.0.113.7/32', 4, 'cb007107', 'cb007107'],
    ['10.1.2.3/8', '10.0.0.0/8', 4, '0a000000', '0affffff'],
    [
      '2001:DB8:0:1::5/64',
      '2001:db8:0:1::/64',
      6,
      '20010db8000000010000000000000000',
      '20010db800000001ffffffffffffffff',
    ],
    [
      '2001:db8::1/128',
      '2001:db8::1/128',
      6,
      '20010db8000000000000000000000001',
      '20010db8000000000000000000000001',
    ],
    ['::ffff:192.0.2.1/128', '192.0.2.1/32', 4, 'c0000201', 'c0000201'],
    [
      '2001:db8::/61',
      '2001:db8::/61',
      6,
      '20010db8000000000000000000000000',
      '20010db800000007ffffffffffffffff',
    ],
  ])('%s → %s', (input, cidr, family, start, end) => {
    expect(cidrRange(input)).toEqual({ cidr, family, start, end });
  });

  it.each([
    '',
    '1.2.3/32',
    '300.1.2.3/32',
    '1.2.3.4/33',
    '2001:db8::/129',
    '1.2.3.4/',
    '1.2.3.4/a',
    'fe80::1%eth0/128',
    'host',
  ])('rejects %p', (input) => {
    expect(cidrRange(input)).toBeNull();
  });
});

describe('addressKey', () => {
  it('gives IPv4, IPv4-mapped IPv6 and IPv6 addresses as family and fixed-width hex', () => {
    expect(addressKey('192.0.2.1')).toEqual({ family: 4, hex: 'c0000201' });
    expect(addressKey('::ffff:192.0.2.1')).toEqual({ family: 4, hex: 'c0000201' });
    expect(addressKey('2001:db8::1')).toEqual({ family: 6, hex: '20010db8000000000000000000000001' });
  });

  it.each(['1.2.3', '0x7f.1', 'fe80::1%eth0', '', 'not-an-ip'])('rejects %p', (input) => {
    expect(parseAddress(input)).toBeNull();
    expect(addressKey(input)).toBeNull();
  });
});

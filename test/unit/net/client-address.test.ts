/** D3a: one named forwarding header, right-to-left walk, ports, and invalid entries refused (never the proxy). */
import { parseCidr, type Cidr } from '../../../gateway/net/address';
import {
  clientAddress,
  clientAddressOn,
  InvalidForwarded,
  parseNode,
} from '../../../gateway/net/client-address';

const trust = (...c: string[]): Cidr[] => c.map((s) => parseCidr(s) as Cidr);
const PROXY = trust('10.0.0.0/8');
const at = (r: ReturnType<typeof clientAddress>): string =>
  r instanceof InvalidForwarded ? `invalid:${r.entry}` : String(r?.toString());

describe('D3a: the named header only', () => {
  test('X-Forwarded-For (default): Forwarded is ignored whatever it says', () => {
    const h = { forwarded: 'for=198.51.100.66', 'x-forwarded-for': '203.0.113.9' };
    expect(at(clientAddress('10.0.0.1', h, PROXY))).toBe('203.0.113.9');
    expect(at(clientAddress('10.0.0.1', { forwarded: 'for=198.51.100.66' }, PROXY))).toBe('10.0.0.1');
  });
  test('Forwarded: X-Forwarded-For passed through from the client is ignored (the red-team case)', () => {
    const h = { forwarded: 'for=203.0.113.9', 'x-forwarded-for': '198.51.100.66' };
    expect(at(clientAddress('10.0.0.1', h, PROXY, 'forwarded'))).toBe('203.0.113.9');
    expect(at(clientAddress('10.0.0.1', { 'x-forwarded-for': '1.2.3.4' }, PROXY, 'forwarded'))).toBe(
      '10.0.0.1',
    );
  });
  test('a forged left part is never read: the right-most untrusted entry wins', () => {
    const h = { 'x-forwarded-for': '198.51.100.66, 203.0.113.9, 10.0.0.7' };
    expect(at(clientAddress('10.0.0.1', h, PROXY))).toBe('203.0.113.9');
    const f = { forwarded: 'for=198.51.100.66, for=203.0.113.9;proto=https, for=10.0.0.7' };
    expect(at(clientAddress('10.0.0.1', f, PROXY, 'forwarded'))).toBe('203.0.113.9');
  });
  test('repeated header lines (joined by Node, or given as an array) are one list', () => {
    expect(
      at(clientAddress('10.0.0.1', { 'x-forwarded-for': ['198.51.100.66', '203.0.113.9'] }, PROXY)),
    ).toBe('203.0.113.9');
  });
  test('every entry trusted: the left-most trusted hop is the client', () => {
    expect(at(clientAddress('10.0.0.1', { 'x-forwarded-for': '10.1.1.1, 10.0.0.7' }, PROXY))).toBe(
      '10.1.1.1',
    );
  });
  test('empty list members add no hop', () => {
    expect(at(clientAddress('10.0.0.1', { 'x-forwarded-for': '203.0.113.9, , ' }, PROXY))).toBe(
      '203.0.113.9',
    );
    expect(at(clientAddress('10.0.0.1', { 'x-forwarded-for': '' }, PROXY))).toBe('10.0.0.1');
  });
  test('an untrusted peer: headers are never read', () => {
    expect(at(clientAddress('192.0.2.1', { 'x-forwarded-for': 'garbage' }, PROXY))).toBe('192.0.2.1');
  });
});

describe('D3a: ports and malformed entries', () => {
  test.each([
    ['1.2.3.4:5678', '1.2.3.4'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['"[2001:db8::1]:443"', '2001:db8::1'],
    ['2001:db8::1', '2001:db8::1'],
    ['::ffff:192.0.2.4', '192.0.2.4'],
  ])('%s counts as %s', (node, want) => {
    expect(parseNode(node)?.toString()).toBe(want);
  });
  test.each([
    '1.2.3.4:',
    '1.2.3.4:99999x',
    '[2001:db8::1',
    '[2001:db8::1]x',
    'unknown',
    '_hidden',
    '01.2.3.4',
    '',
  ])('%j is not an address', (node) => {
    expect(parseNode(node)).toBeNull();
  });
  test('an entry with a port is its address in both headers', () => {
    expect(at(clientAddress('10.0.0.1', { 'x-forwarded-for': '203.0.113.9:5678' }, PROXY))).toBe(
      '203.0.113.9',
    );
    const f = { forwarded: 'for="[2001:db8::1]:443";proto=https' };
    expect(at(clientAddress('10.0.0.1', f, PROXY, 'forwarded'))).toBe('2001:db8::1');
  });
  test('an unparseable first untrusted entry is InvalidForwarded, not the proxy', () => {
    const r = clientAddress('10.0.0.1', { 'x-forwarded-for': '203.0.113.9, bogus!, 10.0.0.7' }, PROXY);
    expect(r).toBeInstanceOf(InvalidForwarded);
    expect((r as InvalidForwarded).header).toBe('x-forwarded-for');
    const f = clientAddress('10.0.0.1', { forwarded: 'for=unknown' }, PROXY, 'forwarded');
    expect(f).toBeInstanceOf(InvalidForwarded);
  });
  test('a bad entry left of the client is never read', () => {
    expect(at(clientAddress('10.0.0.1', { 'x-forwarded-for': 'bogus, 203.0.113.9' }, PROXY))).toBe(
      '203.0.113.9',
    );
  });
  test('the log form withholds entries that are not address-like (a key pasted there stays out of logs)', () => {
    const key = 'gk_' + 'a'.repeat(43);
    const r = clientAddress('10.0.0.1', { 'x-forwarded-for': key }, PROXY) as InvalidForwarded;
    expect(r.entry).toBe('(withheld, 46 characters)');
    const s = clientAddress('10.0.0.1', { 'x-forwarded-for': '1.2.3.4:' }, PROXY) as InvalidForwarded;
    expect(s.entry).toBe('1.2.3.4:');
  });
});

describe('the peer parsed once per connection (issue 12)', () => {
  test('a connection keeps its first parse; the forwarding header is still read on every request', () => {
    // A socket's remoteAddress never changes; this fake one does, to show the second request reuses the parse.
    const socket: { remoteAddress?: string } = { remoteAddress: '10.0.0.1' };
    expect(at(clientAddressOn(socket, { 'x-forwarded-for': '203.0.113.9' }, PROXY))).toBe('203.0.113.9');
    socket.remoteAddress = '192.0.2.7';
    expect(at(clientAddressOn(socket, { 'x-forwarded-for': '198.51.100.66' }, PROXY))).toBe('198.51.100.66');
    expect(at(clientAddressOn(socket, {}, PROXY))).toBe('10.0.0.1');
    // Another connection is parsed on its own.
    expect(at(clientAddressOn({ remoteAddress: '192.0.2.7' }, {}, PROXY))).toBe('192.0.2.7');
  });

  test('same answers as clientAddress: no trusted proxy, a zone, an IPv4-mapped peer, an unparsable one', () => {
    for (const peer of ['10.0.0.1', 'fe80::1%eth0', '::ffff:192.0.2.7', 'not-an-address']) {
      const h = { 'x-forwarded-for': '203.0.113.9' };
      for (const proxies of [[], PROXY]) {
        expect(clientAddressOn({ remoteAddress: peer }, h, proxies)?.toString()).toBe(
          clientAddress(peer, h, proxies)?.toString(),
        );
      }
    }
  });

  test('a socket without an address answers null and is read again on the next request', () => {
    const socket: { remoteAddress?: string } = {};
    expect(clientAddressOn(socket, {}, [])).toBeNull();
    socket.remoteAddress = '192.0.2.7';
    expect(at(clientAddressOn(socket, {}, []))).toBe('192.0.2.7');
  });
});

/** Issue 14 item 2: request id syntax, traceparent, and trust only from trusted proxies (per connection). */
import { parseCidr, type Cidr } from '../../../gateway/net/address';
import { generateRequestId, isValidRequestId, requestIdOf, traceIdOf } from '../../../gateway/net/request-id';

const TRUST = [parseCidr('10.0.0.0/8') as Cidr];
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const GENERATED = /^[A-Za-z0-9_-]{8}-[0-9a-z]+$/;

describe('request ids', () => {
  test.each([
    ['a', true],
    ['lb-42.a:b_c-D', true],
    ['x'.repeat(128), true],
    ['x'.repeat(129), false],
    ['', false],
    ['has space', false],
    ['semi;colon', false],
    ['ünïcode', false],
  ])('X-Request-Id %j valid: %s', (id, ok) => {
    expect(isValidRequestId(id)).toBe(ok);
  });

  test.each([
    [`00-${TRACE}-00f067aa0ba902b7-01`, TRACE],
    [`01-${TRACE}-00f067aa0ba902b7-00-extra`, TRACE],
    [`ff-${TRACE}-00f067aa0ba902b7-01`, null],
    [`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, null],
    [`00-${TRACE.toUpperCase()}-00f067aa0ba902b7-01`, null],
    ['garbage', null],
  ])('traceparent %j gives %j', (header, trace) => {
    expect(traceIdOf(header)).toBe(trace);
  });

  test('kept only from a trusted peer; X-Request-Id before traceparent; invalid ones replaced', () => {
    const proxy = { remoteAddress: '10.1.2.3' };
    const both = { 'x-request-id': 'given-1', traceparent: `00-${TRACE}-00f067aa0ba902b7-01` };
    expect(requestIdOf(proxy, both, TRUST)).toBe('given-1');
    expect(requestIdOf(proxy, { traceparent: both.traceparent }, TRUST)).toBe(TRACE);
    expect(requestIdOf(proxy, { 'x-request-id': 'bad id' }, TRUST)).toMatch(GENERATED);
    expect(requestIdOf({ remoteAddress: '203.0.113.9' }, both, TRUST)).toMatch(GENERATED);
    expect(requestIdOf({ remoteAddress: '10.1.2.3' }, both, [])).toMatch(GENERATED);
    expect(requestIdOf({ remoteAddress: '::ffff:10.0.0.1' }, both, TRUST)).toBe('given-1');
    expect(requestIdOf({}, both, TRUST)).toMatch(GENERATED);
  });

  test('generated ids are unique and cheap to tell apart', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => generateRequestId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(GENERATED);
  });
});

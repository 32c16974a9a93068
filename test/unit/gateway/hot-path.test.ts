/** Edge cases of the hot-path shortcuts: body detection, encoded query keys, the backend target, the cached day. */
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { proxyTarget } from '../../../gateway/http/backend';
import { announcesBody, readBody } from '../../../gateway/http/request';
import { parseAddress, type IpAddress } from '../../../gateway/net/address';
import { findCredential } from '../../../gateway/policy/credentials';
import { planAdmission } from '../../../gateway/policy/planner';
import { RULE_SET_A } from '../../../gateway/policy/ruleset';

/** A readable request with the given headers that will stream `chunks`. */
function request(headers: Record<string, string>, chunks: string[] = []): IncomingMessage {
  const stream = new PassThrough();
  for (const c of chunks) stream.write(c);
  stream.end();
  return Object.assign(stream, { headers, method: 'POST' }) as unknown as IncomingMessage;
}

describe('request bodies (RFC 9112 6.3)', () => {
  test.each([
    [{}, false],
    [{ 'content-length': '0' }, false],
    [{ 'content-length': '5' }, true],
    [{ 'transfer-encoding': 'chunked' }, true],
  ])('headers %j announce a body: %s', (headers, expected) => {
    expect(announcesBody(request(headers))).toBe(expected);
  });

  test('a request without a body resolves to an empty buffer without reading', async () => {
    expect((await readBody(request({}))).length).toBe(0);
  });

  test('a chunked body is read whole', async () => {
    const body = await readBody(request({ 'transfer-encoding': 'chunked' }, ['key=', 'abc']));
    expect(body.toString()).toBe('key=abc');
  });

  test('a body over 16 KiB is too_large', async () => {
    expect(await readBody(request({ 'content-length': '20000' }, ['x'.repeat(20_000)]))).toBe('too_large');
  });
});

describe('query key positions survive the decode shortcut', () => {
  const K = 'gk_' + 'a'.repeat(43);
  const find = (query: string) =>
    findCredential({ method: 'GET', path: '/v1/reverse', query, headers: {} }, ['query-key'], [], null);

  test('a percent-encoded parameter name (k%65y) is still the key parameter', () => {
    expect(find(`lat=1&k%65y=${K}`)).toMatchObject({ kind: 'key', value: K });
  });

  test('a query without key or escapes has no credential', () => {
    expect(find('lat=1&lon=2')).toEqual({ kind: 'none' });
  });
});

describe('backend target', () => {
  test('an IPv6 backend URL loses its brackets in hostname but keeps them in host', () => {
    expect(proxyTarget(new URL('http://[::1]:8090'))).toMatchObject({
      hostname: '::1',
      port: '8090',
      host: '[::1]:8090',
    });
  });

  test('a URL without a port gets the scheme default', () => {
    expect(proxyTarget(new URL('http://backend.internal'))).toMatchObject({ port: '80' });
    expect(proxyTarget(new URL('https://backend.internal'))).toMatchObject({ port: '443' });
  });
});

describe('the plan day is cached per UTC day but always right (D13)', () => {
  const address = parseAddress('203.0.113.9') as IpAddress;
  const plan = (now: number) =>
    planAdmission({ rules: RULE_SET_A, identity: { kind: 'anonymous' }, address, now, id: `p${now}` });

  test('the last millisecond before midnight and the first after it are different days', () => {
    const midnight = Date.UTC(2026, 10, 23);
    expect(plan(midnight - 1).day).toBe('2026-11-22');
    expect(plan(midnight).day).toBe('2026-11-23');
    expect(plan(midnight - 1).day).toBe('2026-11-22');
  });
});

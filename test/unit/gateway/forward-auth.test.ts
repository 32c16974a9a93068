/**
 * Forward auth's pure parts (D38): the config section and its cross-field checks, reading the original request from
 * the one form the operator named (D3a's rule), and the refusal seal nginx carries back.
 */
import type { IncomingMessage } from 'node:http';
import { compileConfig, validateConfig } from '../../../runtime/config';
import { readOriginal } from '../../../gateway/http/forward-auth-original';
import { RefusalSeal } from '../../../gateway/http/forward-auth-refusal';

const base = () => ({
  policy: 'B',
  backend: { url: 'http://127.0.0.1:8090', timeoutMs: 5000 },
  store: { kind: 'embedded', path: './data/x.db' },
  keyPepper: 'p'.repeat(32),
  hosts: [{ name: 'geo.test', adapter: 'native' }],
  trustProxy: ['127.0.0.1/32'],
});
const F = 'config/x.yaml';
const refused = (doc: unknown): string => {
  try {
    validateConfig(doc, F, {});
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
};

describe('the forwardAuth section', () => {
  test('defaults: X-Original-* headers, a 10 s release window; the sweeper waits past the window', () => {
    const doc = { ...base(), forwardAuth: { listen: { port: 8090 } } };
    const c = compileConfig(validateConfig(doc, F, {}), F);
    expect(c.forwardAuth).toEqual({
      listen: { host: '127.0.0.1', port: 8090 },
      request: 'x-original',
      releaseWindowMs: 10_000,
    });
    const long = { ...base(), forwardAuth: { listen: { port: 0 }, releaseWindowMs: 60_000 } };
    expect(compileConfig(validateConfig(long, F, {}), F).reservationTimeoutMs).toBeGreaterThan(60_000);
    expect(compileConfig(validateConfig(base(), F, {}), F).forwardAuth).toBeNull();
  });
  test('is refused without a trusted proxy, with a release window and several workers, or on a used port', () => {
    const fa = { listen: { port: 9000 } };
    expect(refused({ ...base(), trustProxy: [], forwardAuth: fa })).toContain(
      'forwardAuth: forward auth reads the original request from a trusted proxy only',
    );
    expect(refused({ ...base(), workers: 2, forwardAuth: fa })).toContain(
      'forwardAuth.releaseWindowMs: the release route needs workers: 1',
    );
    expect(() =>
      validateConfig({ ...base(), workers: 2, forwardAuth: { ...fa, releaseWindowMs: 0 } }, F, {}),
    ).not.toThrow();
    expect(refused({ ...base(), listen: { port: 9000 }, forwardAuth: fa })).toContain(
      'forwardAuth.listen.port: port 9000 is already used by listen.port',
    );
    expect(refused({ ...base(), forwardAuth: { ...fa, request: 'x-real' } })).toMatch(
      /forwardAuth\.request: /,
    );
    expect(refused({ ...base(), forwardAuth: { ...fa, releaseWindowMs: -1 } })).toMatch(
      /forwardAuth\.releaseWindowMs: /,
    );
  });
});

const req = (url: string, headers: Record<string, string | string[]>, method = 'GET'): IncomingMessage =>
  ({ url, method, headers }) as unknown as IncomingMessage;

describe('reading the original request', () => {
  test('x-original: X-Original-URI and -Method, the host from X-Forwarded-Host without its port', () => {
    const r = req('/v1/admit', {
      'x-original-uri': '/v1/reverse?lat=1&lon=2',
      'x-original-method': 'POST',
      'x-forwarded-host': 'Geo.Test:8443',
      host: 'edge',
    });
    expect(readOriginal(r, 'x-original')).toEqual({
      method: 'POST',
      url: '/v1/reverse?lat=1&lon=2',
      host: 'geo.test',
    });
  });
  test('the form not named is ignored whatever it says (D3a): X-Forwarded-Uri does not count in x-original mode', () => {
    const r = req('/v1/admit', { 'x-forwarded-uri': '/v1/reverse', host: 'geo.test' });
    expect(readOriginal(r, 'x-original')).toEqual({
      code: 'invalid_parameter',
      detail: 'The proxy did not send x-original-uri: the original request is unknown.',
      facts: { parameter: 'header:x-original-uri' },
    });
    const f = req('/v1/admit', {
      'x-forwarded-uri': '/v1/ipv4',
      'x-forwarded-method': 'GET',
      host: 'geo.test',
    });
    expect(readOriginal(f, 'x-forwarded')).toEqual({ method: 'GET', url: '/v1/ipv4', host: 'geo.test' });
  });
  test('path mode (Envoy): the path after /v1/admit and the request method; the Host header', () => {
    expect(readOriginal(req('/v1/admit/v1/reverse?lat=1', { host: 'geo.test' }, 'HEAD'), 'path')).toEqual({
      method: 'HEAD',
      url: '/v1/reverse?lat=1',
      host: 'geo.test',
    });
    expect(readOriginal(req('/v1/admit?x=1', { host: 'geo.test' }), 'path')).toMatchObject({ url: '/?x=1' });
  });
  test.each([
    ['not origin-form', 'v1/reverse'],
    ['absolute-form', 'http://evil.test/v1/reverse'],
    ['a space', '/v1/reverse?q=a b'],
    ['a fragment', '/v1/reverse#x'],
    ['a control character', '/v1/\x01reverse'],
    ['too long', `/${'a'.repeat(9000)}`],
  ])('a malformed X-Original-URI (%s) is a 400 naming the header', (_what, uri) => {
    expect(
      readOriginal(req('/v1/admit', { 'x-original-uri': uri, host: 'geo.test' }), 'x-original'),
    ).toMatchObject({
      code: 'invalid_parameter',
      facts: { parameter: 'header:x-original-uri' },
    });
  });
  test('a bad method, a repeated header or no host is a 400 naming it', () => {
    const uri = { 'x-original-uri': '/v1/reverse', host: 'geo.test' };
    expect(
      readOriginal(req('/v1/admit', { ...uri, 'x-original-method': 'get it' }), 'x-original'),
    ).toMatchObject({
      facts: { parameter: 'header:x-original-method' },
    });
    expect(
      readOriginal(req('/v1/admit', { ...uri, 'x-original-uri': ['/a', '/b'] }), 'x-original'),
    ).toMatchObject({
      facts: { parameter: 'header:x-original-uri' },
    });
    expect(readOriginal(req('/v1/admit', { 'x-original-uri': '/v1/reverse' }), 'x-original')).toMatchObject({
      facts: { parameter: 'header:x-forwarded-host' },
    });
  });
});

describe('the refusal seal', () => {
  const seal = new RefusalSeal('p'.repeat(32));
  const answer = {
    status: 429,
    headers: { 'content-type': 'application/problem+json' },
    body: '{"code":"quota_exceeded"}',
  };
  test('opens what it sealed, with the extra headers', () => {
    const sealed = seal.seal(answer, { 'retry-after': '60' });
    expect(seal.open(sealed)).toEqual({
      status: 429,
      headers: { 'content-type': 'application/problem+json', 'retry-after': '60' },
      body: '{"code":"quota_exceeded"}',
    });
  });
  test('refuses a changed payload, a foreign key and garbage', () => {
    const sealed = seal.seal(answer, {});
    const [payload, mac] = sealed.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ s: 200, h: {}, b: 'hi' })).toString('base64url');
    expect(seal.open(`${forged}.${mac}`)).toBeNull();
    expect(new RefusalSeal('q'.repeat(32)).open(sealed)).toBeNull();
    expect(seal.open(payload)).toBeNull();
    expect(seal.open('.')).toBeNull();
    expect(seal.open(`${payload}.AAAA`)).toBeNull();
  });
});

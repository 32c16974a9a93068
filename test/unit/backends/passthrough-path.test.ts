/** D26 paths and queries: unsafe paths refused, routes matched (exact first, longest prefix), credentials stripped. */
import type { PassthroughRoute } from '../../../gateway/config/backends';
import { matchRoute, safePath, withoutCredentials } from '../../../gateway/http/passthrough-path';

const route = (pattern: string, cost = 1): PassthroughRoute => {
  const prefix = pattern.endsWith('/*');
  return {
    pattern,
    path: prefix ? pattern.slice(0, -1) : pattern,
    prefix,
    methods: new Set(['GET']),
    cost,
    deadlineMs: 60_000,
    responseHeaders: new Set<string>(),
  };
};

test.each([
  ['/search', '/search'],
  ['/v1/search/structured', '/v1/search/structured'],
  ['/details/', '/details/'],
  ['/a%20b', '/a b'],
  ['/caf%C3%A9', '/café'],
])('safe: %s → %s', (raw, decoded) => expect(safePath(raw)).toBe(decoded));

test.each([
  '/search/../status',
  '/..',
  '/.',
  '/a/./b',
  '/%2e%2e/x',
  '/%2E%2e/x',
  '/a/%2e/b',
  '/a%2fb',
  '/a%2Fb',
  '/a%5cb',
  '/a\\b',
  '//a',
  '/a//b',
  '/a%00',
  '/a%0d%0a',
  '/a%zz',
  'search',
  // Path parameters: Tomcat, Spring and Jetty drop what follows ";" before they resolve dot segments.
  '/v1/..;/admin',
  '/v1/.;/admin',
  '/v1/%2e%2e;/admin',
  '/v1/..%3b/admin',
  '/v1/..%3B/admin',
  '/v1/..;jsessionid=x/admin',
  '/v1/.%2e;x=1/admin',
  '/v1/;/admin',
  '/..;',
])('unsafe: %s', (raw) => expect(safePath(raw)).toBeNull());

test.each([
  ['/v1/search;lang=en', '/v1/search;lang=en'],
  ['/v1/a;b/c', '/v1/a;b/c'],
  ['/v1/..a;/b', '/v1/..a;/b'],
  ['/v1/...;/b', '/v1/...;/b'],
])('a segment with a path parameter is safe when its part before ";" is a name: %s', (raw, decoded) =>
  expect(safePath(raw)).toBe(decoded),
);

test('routes: exact first, then the longest prefix; a prefix needs something after it', () => {
  const routes = [route('/v1/*'), route('/v1/search'), route('/v1/search/*', 2), route('/*', 0)];
  expect(matchRoute(routes, '/v1/search')?.pattern).toBe('/v1/search');
  expect(matchRoute(routes, '/v1/search/structured')?.pattern).toBe('/v1/search/*');
  expect(matchRoute(routes, '/v1/autocomplete')?.pattern).toBe('/v1/*');
  expect(matchRoute(routes, '/status')?.pattern).toBe('/*');
  expect(matchRoute([route('/v1/*')], '/v1/')).toBeNull();
  expect(matchRoute([route('/v1/*')], '/v1')).toBeNull();
  expect(matchRoute([route('/search')], '/search/')).toBeNull();
});

test('credential parameters are removed whatever their case or encoding; the rest is kept as sent', () => {
  const names = new Set(['key', 'api_key', 'access_token']);
  expect(withoutCredentials('q=a%20b&key=K&format=json', names)).toBe('q=a%20b&format=json');
  expect(withoutCredentials('KEY=K&Api_Key=K2&%6Bey=K3&q=1', names)).toBe('q=1');
  expect(withoutCredentials('access_token=T', names)).toBe('');
  expect(withoutCredentials('q=1&&k%zz=2', names)).toBe('q=1');
  expect(withoutCredentials('', names)).toBe('');
});

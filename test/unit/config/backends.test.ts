/** D25/D26 config: named backends, per-host backend/ipBackend/passthrough, strict messages naming file, host and field. */
import { compileConfig, validateConfig } from '../../../runtime/config';

const F = 'config/x.yaml';
const base = (): Record<string, unknown> => ({
  policy: 'A',
  store: { kind: 'embedded', path: '/tmp/x.db' },
  keyPepper: 'p'.repeat(20),
  hosts: [{ name: 'localhost', adapter: 'native' }],
});
const ENV = { UPSTREAM_KEY: 'up-secret-1', K: 'qk-2' };

function refused(doc: unknown, env: NodeJS.ProcessEnv = ENV): string {
  try {
    validateConfig(doc, F, env);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the config was accepted');
}
const compiled = (doc: unknown) => compileConfig(validateConfig(doc, F, ENV), F);

const full = (): Record<string, unknown> => ({
  ...base(),
  backend: { url: 'http://127.0.0.1:8090', timeoutMs: 5000 },
  backends: {
    osm: {
      kind: 'nominatim',
      url: 'http://127.0.0.1:8088/nominatim/',
      timeoutMs: 3000,
      headers: { 'X-Upstream-Key': '${UPSTREAM_KEY}' },
      query: { key: '${K}' },
    },
    ph: { kind: 'photon', url: 'http://10.0.0.6:2322', timeoutMs: 2000 },
    pel: { kind: 'pelias', url: 'https://pelias.example/api/', timeoutMs: 4000 },
    raw: { kind: 'http', url: 'http://10.0.0.7/', timeoutMs: 7000 },
  },
  hosts: [
    { name: 'localhost', adapter: 'native' },
    {
      name: 'nominatim.localhost',
      adapter: 'nominatim',
      backend: 'osm',
      ipBackend: 'default',
      passthrough: [
        { path: '/search', methods: ['GET'], cost: 1 },
        { path: '/status', methods: ['GET'], cost: 0 },
        { path: '/v1/*' },
      ],
    },
    { name: 'photon.localhost', adapter: 'photon', backend: 'ph' },
  ],
});

describe('backends in the config (D25)', () => {
  test('the old single backend: is the backend "default" of kind geogate, the default of every host', () => {
    const c = compiled({ ...base(), backend: { url: 'http://127.0.0.1:8090' } });
    const h = c.hosts[0];
    expect(h?.backend.name).toBe('default');
    expect(h?.backend.kind).toBe('geogate');
    expect(h?.ipBackend?.name).toBe('default');
    expect(h?.passthrough).toEqual([]);
    expect(c.backend.url.href).toBe('http://127.0.0.1:8090/');
  });

  test('named backends compile with their prefix kept, headers and query from ${ENV}', () => {
    const c = compiled(full());
    const osm = c.backends.get('osm');
    expect(osm?.kind).toBe('nominatim');
    expect(osm?.prefix).toBe('/nominatim');
    expect(osm?.headers).toEqual({ 'x-upstream-key': 'up-secret-1' });
    expect(osm?.query).toBe('key=qk-2');
    expect(osm?.passRequestId).toBe(false);
    expect(c.backends.get('pel')?.prefix).toBe('/api');
    expect(c.backends.get('raw')?.prefix).toBe('');
    const nom = c.hosts[1];
    expect(nom?.backend.name).toBe('osm');
    expect(nom?.ipBackend?.name).toBe('default');
    expect(nom?.passthrough.map((r) => [r.path, r.prefix, r.cost, [...r.methods]])).toEqual([
      ['/search', false, 1, ['GET']],
      ['/status', false, 0, ['GET']],
      ['/v1/', true, 1, ['GET']],
    ]);
    // A host on a backend without IP lookups and no ipBackend: the default geogate backend answers them.
    expect(c.hosts[2]?.ipBackend?.name).toBe('default');
    // The sweeper waits for the slowest backend.
    expect(c.reservationTimeoutMs).toBe(7000 + 10_000);
  });

  test('a config with backends: only needs no top-level backend; IP lookups then have no backend', () => {
    const doc = {
      ...base(),
      backends: { osm: { kind: 'nominatim', url: 'http://127.0.0.1:8088/' } },
      hosts: [{ name: 'localhost', adapter: 'native', backend: 'osm' }],
    };
    const c = compiled(doc);
    expect(c.hosts[0]?.backend.name).toBe('osm');
    expect(c.hosts[0]?.ipBackend).toBeNull();
    expect(c.backends.get('osm')?.timeoutMs).toBe(5000);
  });

  test.each<[string, (d: Record<string, unknown>) => void, string]>([
    [
      'an unknown backend name',
      (d) => ((d['hosts'] as Record<string, unknown>[])[1]!['backend'] = 'osmx'),
      `${F}: hosts[1].backend: host "nominatim.localhost" names an unknown backend "osmx"; configured backends: default, osm, ph, pel, raw`,
    ],
    [
      'an unknown ipBackend',
      (d) => ((d['hosts'] as Record<string, unknown>[])[1]!['ipBackend'] = 'nope'),
      `${F}: hosts[1].ipBackend: host "nominatim.localhost" names an unknown backend "nope"; configured backends: default, osm, ph, pel, raw`,
    ],
    [
      'an ipBackend of a kind without IP lookups',
      (d) => ((d['hosts'] as Record<string, unknown>[])[1]!['ipBackend'] = 'ph'),
      `${F}: hosts[1].ipBackend: host "nominatim.localhost" names backend "ph" of kind photon, which has no IP lookup; name a backend of kind geogate`,
    ],
    [
      'a duplicate name (the top-level backend is "default")',
      (d) => ((d['backends'] as Record<string, unknown>)['default'] = { kind: 'geogate', url: 'http://x/' }),
      `${F}: backends.default: the backend name "default" is already used by backend (the top-level backend: is the backend named "default"); give each backend its own name`,
    ],
    [
      "a kind's missing url",
      (d) => ((d['backends'] as Record<string, Record<string, unknown>>)['ph'] = { kind: 'photon' }),
      `${F}: backends.ph.url: required, but missing`,
    ],
    [
      'a missing kind',
      (d) => ((d['backends'] as Record<string, Record<string, unknown>>)['ph'] = { url: 'http://x/' }),
      `${F}: backends.ph.kind: required: "geogate", "nominatim", "photon", "pelias" or "http"`,
    ],
    [
      'an unknown kind',
      (d) => ((d['backends'] as Record<string, Record<string, unknown>>)['ph']!['kind'] = 'google'),
      `${F}: backends.ph.kind: must be "geogate", "nominatim", "photon", "pelias" or "http", not "google" (text)`,
    ],
    [
      'an unknown key in a backend',
      (d) => ((d['backends'] as Record<string, Record<string, unknown>>)['ph']!['tmeout'] = 1),
      `${F}: backends.ph.tmeout: unknown key`,
    ],
    [
      'a URL with a query string',
      (d) => ((d['backends'] as Record<string, Record<string, unknown>>)['ph']!['url'] = 'http://x/?key=1'),
      `${F}: backends.ph.url: a base URL without query, fragment or user:password (put parameters under query:, credentials under headers:)`,
    ],
    [
      'a header the gateway sets itself',
      (d) => ((d['backends'] as Record<string, Record<string, unknown>>)['ph']!['headers'] = { Host: 'x' }),
      `${F}: backends.ph.headers.Host: the header "Host" is set by the gateway, not by the config`,
    ],
  ])('refuses %s naming file, host and field', (_name, change, message) => {
    const d = full();
    change(d);
    expect(refused(d)).toBe(message);
  });

  test.each([
    '/search/../admin',
    '/a/%2e%2e/b',
    'search',
    '/a//b',
    '/a/*/b',
    '/a*',
    '/a?x=1',
    '/./a',
    '/..',
    '/v1/..;/x',
    '/v1/.;x=1/*',
    '/v1/;/x',
  ])('refuses the bad path pattern %s naming the route', (path) => {
    const d = full();
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [{ path }];
    expect(refused(d)).toMatch(
      new RegExp(`^config/x\\.yaml: hosts\\[1\\]\\.passthrough\\[0\\]\\.path: not a path pattern: `),
    );
  });

  test('accepts exact paths, "/*" and trailing "/*" prefixes', () => {
    const d = full();
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [
      { path: '/*' },
      { path: '/search.php' },
      { path: '/v1/autocomplete' },
      { path: '/details/' },
    ];
    expect(compiled(d).hosts[1]?.passthrough.map((r) => r.path)).toEqual([
      '/',
      '/search.php',
      '/v1/autocomplete',
      '/details/',
    ]);
  });

  test('refuses a route listed twice, a negative or fractional cost, an unknown method', () => {
    const d = full();
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [
      { path: '/search' },
      { path: '/search', cost: 2 },
    ];
    expect(refused(d)).toBe(
      `${F}: hosts[1].passthrough[1].path: host "nominatim.localhost" lists "/search" twice (first at passthrough[0])`,
    );
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [{ path: '/search', cost: -1 }];
    expect(refused(d)).toBe(`${F}: hosts[1].passthrough[0].cost: must be at least 0`);
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [{ path: '/search', cost: 1.5 }];
    expect(refused(d)).toMatch(/hosts\[1\]\.passthrough\[0\]\.cost: must be a whole number/);
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [{ path: '/search', methods: ['TRACE'] }];
    expect(refused(d)).toMatch(/hosts\[1\]\.passthrough\[0\]\.methods\[0\]: must be "GET"/);
  });

  test("a route's deadline (default 60 s), its extra response headers, a backend's passthrough connections (default 64)", () => {
    const d = full();
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [
      { path: '/search' },
      { path: '/files/*', deadlineMs: 300_000, responseHeaders: ['X-Total-Count', 'Link'] },
    ];
    (d['backends'] as Record<string, Record<string, unknown>>)['osm']!['passthroughConnections'] = 8;
    const c = compiled(d);
    expect(c.hosts[1]?.passthrough.map((r) => [r.deadlineMs, [...r.responseHeaders]])).toEqual([
      [60_000, []],
      [300_000, ['x-total-count', 'link']],
    ]);
    expect(c.backends.get('osm')?.passthroughConnections).toBe(8);
    expect(c.backends.get('ph')?.passthroughConnections).toBe(64);
    expect(c.backends.get('default')?.passthroughConnections).toBe(64);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['a deadline of 0', { deadlineMs: 0 }, 'hosts[1].passthrough[0].deadlineMs: must be at least 1'],
    [
      'Set-Cookie as an extra response header',
      { responseHeaders: ['Set-Cookie'] },
      `hosts[1].passthrough[0].responseHeaders[0]: the header "Set-Cookie" is never taken from a backend (framing, cookies, and the gateway's own CORS, request id and quota headers)`,
    ],
    [
      "the gateway's CORS header as an extra response header",
      { responseHeaders: ['Access-Control-Allow-Origin'] },
      `hosts[1].passthrough[0].responseHeaders[0]: the header "Access-Control-Allow-Origin" is never taken from a backend (framing, cookies, and the gateway's own CORS, request id and quota headers)`,
    ],
    [
      "the operator's upstream credential header as an extra response header",
      { responseHeaders: ['x-upstream-key'] },
      'hosts[1].passthrough[0].responseHeaders: "x-upstream-key" is a header the gateway sends to backend "osm" (the operator\'s own); it is never passed back to a client',
    ],
  ])('refuses %s, naming the route', (_name, change, message) => {
    const d = full();
    (d['hosts'] as Record<string, unknown>[])[1]!['passthrough'] = [{ path: '/search', ...change }];
    expect(refused(d)).toBe(`${F}: ${message}`);
  });

  test('refuses passthroughConnections outside 1..1024', () => {
    const d = full();
    (d['backends'] as Record<string, Record<string, unknown>>)['osm']!['passthroughConnections'] = 0;
    expect(refused(d)).toBe(`${F}: backends.osm.passthroughConnections: must be at least 1`);
  });

  test('a host without backend: and no top-level backend: is refused; an empty config of backends too', () => {
    const d = { ...base(), backends: { osm: { kind: 'nominatim', url: 'http://x/' } } };
    expect(refused(d)).toBe(
      `${F}: hosts[0].backend: host "localhost" names no backend and there is no top-level backend: (the default); name one of: osm`,
    );
    expect(refused(base())).toMatch(/^config\/x\.yaml: backend: required, but missing/);
  });

  test('a missing ${ENV} of an upstream credential is named; its value never appears in a message', () => {
    expect(refused(full(), { K: 'x' })).toBe(
      `${F}: backends.osm.headers.X-Upstream-Key: environment variable UPSTREAM_KEY is not set`,
    );
    const d = full();
    (d['backends'] as Record<string, Record<string, unknown>>)['osm']!['headers'] = {
      'X-Key': 'a\nb-secret',
    };
    const m = refused(d);
    expect(m).toBe(`${F}: backends.osm.headers.X-Key: must not contain line breaks or NUL`);
    expect(m).not.toContain('secret');
  });
});

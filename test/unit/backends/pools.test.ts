/** One keep-alive pool per backend, of the backend's protocol (an upstream API is usually https). */
import http from 'node:http';
import https from 'node:https';
import { passthroughProxies } from '../../../gateway/http/passthrough-proxy';
import { compileConfig, validateConfig } from '../../../runtime/config';

const config = compileConfig(
  validateConfig(
    {
      policy: 'A',
      store: { kind: 'embedded', path: '/tmp/x.db' },
      keyPepper: 'p'.repeat(20),
      backend: { url: 'http://127.0.0.1:8090' },
      backends: {
        up: { kind: 'http', url: 'https://maps.example.com/', passthroughConnections: 8 },
        osm: { kind: 'nominatim', url: 'http://127.0.0.1:8088/nominatim/' },
      },
      hosts: [{ name: 'localhost', adapter: 'native' }],
    },
    'x.yaml',
    {},
  ),
  'x.yaml',
);

test('each backend has its own pool, https for an https URL', () => {
  const p = passthroughProxies(config.backends);
  try {
    const pools = ['default', 'up', 'osm'].map((n) => p.of(config.backends.get(n)!).agent);
    expect(pools[0]).toBeInstanceOf(http.Agent);
    expect(pools[0]).not.toBeInstanceOf(https.Agent);
    expect(pools[1]).toBeInstanceOf(https.Agent);
    expect(pools[2]).not.toBeInstanceOf(https.Agent);
    expect(new Set(pools).size).toBe(3);
  } finally {
    p.close();
  }
});

test("a backend's passthrough pool holds at most passthroughConnections sockets (default 64)", () => {
  const p = passthroughProxies(config.backends);
  try {
    expect(p.of(config.backends.get('up')!).agent.maxSockets).toBe(8);
    expect(p.of(config.backends.get('osm')!).agent.maxSockets).toBe(64);
    expect(p.of(config.backends.get('default')!).agent.maxSockets).toBe(64);
  } finally {
    p.close();
  }
});

/**
 * Issue 10, end to end: an `http` backend in front of an https upstream (a commercial API), as docs/backends.md shows
 * it. The launched gateway process trusts a test CA (NODE_EXTRA_CA_CERTS, made here with openssl) and forwards a
 * passthrough route over TLS with the operator's upstream key from ${ENV}; the client's key never goes up.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { call, startGatewayProc, useTempDir, type RunningProcess } from '../harness';

let dir: string;
useTempDir('geogate-https-', (d) => (dir = d));
let gw: RunningProcess | null = null;
let upstream: https.Server | null = null;
afterAll(async () => {
  await gw?.stop();
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()));
});

test('a passthrough route reaches an https upstream with the operator key, never the client key', async () => {
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const seen: { url: string; headers: Record<string, unknown> }[] = [];
  upstream = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ results: [], status: 'ZERO_RESULTS' }));
  });
  await new Promise<void>((resolve) => upstream?.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  const file = join(dir, 'https.yaml');
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: "admin-token-0123456789" }',
      'backends:',
      `  upstream: { kind: http, url: "https://127.0.0.1:${port}/", query: { key: "\${UPSTREAM_GOOGLE_KEY}" } }`,
      `store: { kind: embedded, path: "${join(dir, 'h.db')}" }`,
      `keyPepper: "${'p'.repeat(20)}"`,
      'hosts:',
      '  - { name: localhost, adapter: google, backend: upstream, passthrough: [{ path: "/maps/api/*" }] }',
      'log: { level: silent }',
      'drain: { delayMs: 0 }',
    ].join('\n'),
  );
  gw = await startGatewayProc(file, 3, { NODE_EXTRA_CA_CERTS: cert, UPSTREAM_GOOGLE_KEY: 'operator-secret' });
  const a = await call(gw.url, '/maps/api/geocode/json?address=London&client=c1&signature=s1');
  expect(a.status).toBe(200);
  expect(a.json).toEqual({ results: [], status: 'ZERO_RESULTS' });
  // Google's credential parameters (key, client, signature) are stripped; the operator's key is added.
  expect(seen.map((s) => s.url)).toEqual(['/maps/api/geocode/json?address=London&key=operator-secret']);
  // The readiness call of an http backend reaches the upstream over TLS too.
  const ready = await call(gw.urls[2] as string, '/readyz');
  expect(ready.json.checks['backend:upstream']).toBe(true);
});

/**
 * Issue 14 item 1, end to end: the launched gateway process (`dist/gateway/main.js`) serves Prometheus text on its
 * admin listener's /metrics; a scrape after real requests parses and counts them, and holds no key or address.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseExposition, sampleValue } from '../../helpers/exposition';
import { call, startGatewayProc, useBackendProcess, useTempDir, type RunningProcess } from '../harness';

let dir: string;
useTempDir('geogate-metrics-', (d) => (dir = d));
const backend = useBackendProcess();
let gw: RunningProcess | null = null;
afterAll(async () => {
  await gw?.stop();
});

test('a scrape of the running process counts the requests by host, adapter, identity and outcome', async () => {
  const file = join(dir, 'metrics.yaml');
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: "admin-token-0123456789" }',
      `backend: { url: "${backend.url}" }`,
      `store: { kind: embedded, path: "${join(dir, 'm.db')}" }`,
      `keyPepper: "${'p'.repeat(20)}"`,
      'hosts: [{ name: localhost, adapter: native }]',
      'log: { level: silent }',
      'drain: { delayMs: 0 }',
    ].join('\n'),
  );
  gw = await startGatewayProc(file, 3);
  const adminUrl = gw.urls[2] as string;
  for (let i = 0; i < 3; i++) expect((await call(gw.url, '/v1/ipv4?ip=8.8.8.8')).status).toBe(200);
  const bad = await call(gw.url, '/v1/reverse?lat=91&lon=0');
  expect(bad.status).toBe(400);
  const unknownKey = `gk_${'A'.repeat(43)}`;
  expect((await call(gw.url, '/v1/ipv4?ip=8.8.8.8', { headers: { 'x-api-key': unknownKey } })).status).toBe(
    401,
  );

  const scrape = await call(adminUrl, '/metrics');
  expect(scrape.status).toBe(200);
  const samples = parseExposition(scrape.text);
  const base = { host: 'localhost', adapter: 'native' };
  expect(sampleValue(samples, 'geogate_requests_total', { ...base, identity: 'anonymous', code: 'ok' })).toBe(
    3,
  );
  expect(sampleValue(samples, 'geogate_requests_total', { ...base, code: 'invalid_parameter' })).toBe(1);
  expect(sampleValue(samples, 'geogate_requests_total', { ...base, code: 'invalid_key' })).toBe(1);
  expect(sampleValue(samples, 'geogate_admissions_total', { billing: 'free' })).toBe(3);
  expect(scrape.text).toContain('geogate_backend_duration_seconds_bucket');
  expect(scrape.text).toContain('nodejs_eventloop_lag');
  expect(scrape.text).not.toContain(unknownKey);
  expect(scrape.text).not.toContain('127.0.0.1');
});

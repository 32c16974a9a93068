/**
 * `workers: 2`: one Prometheus view of the whole process group. Node's cluster hands new connections to the workers
 * in turn, so N requests on fresh connections land on both; every scrape, whichever worker answers it, shows all N
 * (prom-client's AggregatorRegistry over the cluster's IPC, runtime/cluster.ts). With a registry per worker a scrape
 * would show about N/2.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseExposition, sampleValue } from '../../helpers/exposition';
import { killAll, waitForChildren } from '../../helpers/gateway-processes';
import { call, startGatewayProc, useBackendProcess, useTempDir, type RunningProcess } from '../harness';

let dir: string;
useTempDir('geogate-workers-metrics-', (d) => (dir = d));
const backend = useBackendProcess();
let gw: RunningProcess | null = null;
afterAll(async () => {
  if (gw) await killAll(gw);
});

/** A fresh connection per request, so the cluster spreads them over the workers. */
const fresh = { headers: { connection: 'close' } };

test('every scrape of a 2-worker gateway counts the requests of both workers', async () => {
  const file = join(dir, 'workers.yaml');
  writeFileSync(
    file,
    [
      'policy: A',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: "admin-token-0123456789" }',
      `backend: { url: "${backend.url}" }`,
      `store: { kind: embedded, path: "${join(dir, 'w.db')}" }`,
      `keyPepper: "${'p'.repeat(20)}"`,
      'hosts: [{ name: localhost, adapter: native }]',
      'log: { level: silent }',
      'drain: { delayMs: 0 }',
      'workers: 2',
    ].join('\n'),
  );
  gw = await startGatewayProc(file, 3);
  await waitForChildren(gw.pid, 2);
  const deadline = Date.now() + 60_000;
  while (gw.urls.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(gw.urls).toHaveLength(6);
  const main = gw.urls[0] as string;
  const admin = gw.urls[2] as string;

  const N = 20;
  for (let i = 0; i < N; i++) expect((await call(main, '/v1/ipv4?ip=8.8.8.8', fresh)).status).toBe(200);
  expect((await call(main, '/v1/reverse?lat=91&lon=0', fresh)).status).toBe(400);

  for (let scrape = 0; scrape < 6; scrape++) {
    const r = await call(admin, '/metrics', fresh);
    expect(r.status).toBe(200);
    const samples = parseExposition(r.text);
    const base = { host: 'localhost', adapter: 'native' };
    expect(
      sampleValue(samples, 'geogate_requests_total', { ...base, identity: 'anonymous', code: 'ok' }),
    ).toBe(N);
    expect(sampleValue(samples, 'geogate_request_duration_seconds_count', { host: 'localhost' })).toBe(N + 1);
    expect(sampleValue(samples, 'geogate_admissions_total', { billing: 'free' })).toBe(N);
    // One build, whatever the number of workers.
    const build = samples.filter((s) => s.name === 'geogate_build_info');
    expect(build).toHaveLength(1);
    expect(build[0]?.value).toBe(1);
  }
}, 120_000);

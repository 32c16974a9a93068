/**
 * D27 (issue 10 item 5): /readyz checks every configured backend by its kind's cheap call (Nominatim `/status`, Photon
 * and Pelias a reverse call at 0,0, our backend `/healthz`) and names the one that is down; the gateway starts while
 * a backend is down and becomes ready when it comes up. Replay servers answer what each project documents.
 */
import type { Harness } from '../../helpers/gateway-harness';
import { call } from '../../helpers/gateway-harness';
import {
  closedPort,
  startReplay,
  type ReplayServer,
  type Received,
  type Reply,
} from '../../helpers/replay-server';
import { NOMINATIM_STATUS } from '../../fixtures/connectors/nominatim';
import { PELIAS_NOTHING } from '../../fixtures/connectors/pelias';
import { PHOTON_NOTHING } from '../../fixtures/connectors/photon';
import { gatewayStarter } from './fixture';

const start = gatewayStarter();
const servers: ReplayServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A replay answering each kind's readiness call as the project documents it. */
const byPath = (req: Received): Reply => {
  if (req.url.startsWith('/healthz')) return { status: 200, body: { status: 'ok' } };
  if (req.url.startsWith('/nominatim/status')) return { status: 200, body: NOMINATIM_STATUS };
  if (req.url.startsWith('/reverse')) return { status: 200, body: PHOTON_NOTHING };
  if (req.url.startsWith('/v1/reverse')) return { status: 200, body: PELIAS_NOTHING };
  return { status: 404, body: {} };
};

async function replay(reply: Reply | ((r: Received) => Reply), port = 0): Promise<ReplayServer> {
  const s = await startReplay({ status: 500, body: {} }, port);
  s.reply(reply);
  servers.push(s);
  return s;
}

const readyz = (h: Harness) => call(h.adminUrl, '/readyz');

test("every backend is checked by its kind's call; all up: ready", async () => {
  const r = await replay(byPath);
  const h = await start({
    policy: 'A',
    backendUrl: r.url,
    config: {
      backends: {
        osm: { kind: 'nominatim', url: `${r.url}/nominatim/`, headers: { 'X-Upstream-Key': 'op' } },
        ph: { kind: 'photon', url: r.url },
        pel: { kind: 'pelias', url: r.url },
      },
    },
  });
  const a = await readyz(h);
  expect(a.status).toBe(200);
  expect(a.json).toEqual({
    status: 'ready',
    checks: { sqlite: true, backend: true, 'backend:osm': true, 'backend:ph': true, 'backend:pel': true },
  });
  const urls = r.received.map((x) => x.url).sort();
  expect(urls).toEqual([
    '/healthz',
    '/nominatim/status?format=json',
    '/reverse?lat=0&lon=0&limit=1',
    '/v1/reverse?point.lat=0&point.lon=0&size=1',
  ]);
  expect(r.received.find((x) => x.url.startsWith('/nominatim'))?.headers['x-upstream-key']).toBe('op');
});

test('the backend that is down is named; a Nominatim whose /status says not OK is down', async () => {
  const r = await replay(byPath);
  const down = await closedPort();
  const sick = await replay({ status: 500, body: { status: 700, message: 'Database connection failed' } });
  const h = await start({
    policy: 'A',
    backendUrl: r.url,
    config: {
      backends: {
        osm: { kind: 'nominatim', url: `${sick.url}/` },
        ph: { kind: 'photon', url: `http://127.0.0.1:${down}/` },
        pel: { kind: 'pelias', url: r.url },
      },
    },
  });
  const a = await readyz(h);
  expect(a.status).toBe(503);
  expect(a.json).toEqual({
    status: 'not_ready',
    checks: { sqlite: true, backend: true, 'backend:osm': false, 'backend:ph': false, 'backend:pel': true },
  });
});

test('start-up does not fail when a backend is down; ready once it comes up', async () => {
  const port = await closedPort();
  const h = await start({
    policy: 'A',
    backendUrl: `http://127.0.0.1:${port}`,
    config: {
      backends: { osm: { kind: 'nominatim', url: `http://127.0.0.1:${port}/nominatim/` } },
      hosts: [{ name: 'localhost', adapter: 'nominatim', backend: 'osm' }],
    },
  });
  const before = await readyz(h);
  expect(before.status).toBe(503);
  expect(before.json.checks).toEqual({ sqlite: true, backend: false, 'backend:osm': false });
  await replay(byPath, port);
  const after = await readyz(h);
  expect(after.status).toBe(200);
  expect(after.json.checks).toEqual({ sqlite: true, backend: true, 'backend:osm': true });
});

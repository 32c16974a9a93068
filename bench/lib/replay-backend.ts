/**
 * A replay backend for `npm run bench:gateway` (issue 10): one process answering, with fixed bodies
 * (bench/lib/replay-bodies.ts), what a geocoder the bench cannot run here would answer, so the gateway's connector cost
 * is measured against the same server for every kind: our backend's record at `/reverse`, Nominatim's answers under
 * `/nominatim/`. Prints "listening on URL" (bench/run/gateway.ts reads it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GEOGATE, json, NOMINATIM_REVERSE, NOMINATIM_SEARCH, NOMINATIM_STATUS } from './replay-bodies';

const ROUTES: [string, Buffer][] = [
  ['/reverse?', GEOGATE],
  ['/healthz', json({ status: 'ok' })],
  ['/nominatim/reverse?', NOMINATIM_REVERSE],
  ['/nominatim/search?', NOMINATIM_SEARCH],
  ['/nominatim/status', NOMINATIM_STATUS],
];

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  const hit = ROUTES.find(([p]) => url.startsWith(p));
  const body = hit ? hit[1] : json({ error: 'not found' });
  res.writeHead(hit ? 200 : 404, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

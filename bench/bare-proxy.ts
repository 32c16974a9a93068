/**
 * `node dist/bench/bare-proxy.js --backend URL`: the floor of `npm run bench:gateway` (issue 12). The least a Node
 * proxy does for the gateway's main-host call, built from the gateway's own transport parts and nothing else: Node's
 * HTTP server, an undici Pool with the forwarder's options driven by a bare dispatch handler (gateway/http/backend.ts),
 * the backend's answer collected whole and written back with the headers the gateway writes. No store, no key, no
 * parsing or rendering of the record, no request id, no log line, no metrics. `/v1/x?q` goes to the backend's `/x?q`,
 * as in the bench's nginx. Prints "listening on URL" when ready (the bench's start()).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

function arg(name: string): string {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`usage: bare-proxy --backend URL [--port N]`);
  return v;
}

const backend = new URL(arg('--backend'));
const port = process.argv.includes('--port') ? Number(arg('--port')) : 0;
const origin = backend.origin;
const pool = new Pool(origin, { connections: 256, pipelining: 1, keepAliveTimeout: 4_000 });
const HEADERS = ['accept', 'application/json'];

const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  const chunks: Buffer[] = [];
  let status = 502;
  pool.dispatch(
    { origin, path: url.startsWith('/v1/') ? url.slice(3) : url, method: 'GET', headers: HEADERS },
    {
      onRequestStart() {},
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData(_c, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'access-control-allow-origin': '*',
          'cache-control': 'no-store',
          'content-length': String(body.length),
        });
        res.end(body);
      },
      onResponseError() {
        res.writeHead(502, { 'content-length': '0' }).end();
      },
    },
  );
});
server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  const a = server.address() as AddressInfo;
  console.log(`bare proxy: listening on http://127.0.0.1:${a.port}`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.destroy().finally(() => process.exit(0));
});

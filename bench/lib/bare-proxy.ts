/**
 * `node dist/bench/lib/bare-proxy.js --backend URL [--server node|express|uws] [--client undici|minimal]`: the floor of
 * `npm run bench:gateway` (issue 12), and the transports of `npm run bench:transport`. The least a proxy does for the
 * gateway's main-host call: the backend's answer collected whole and written back with the headers the gateway
 * writes. No store, no key, no parsing or rendering of the record, no request id, no log line, no metrics.
 * `/v1/x?q` goes to the backend's `/x?q`, as in the bench's nginx. The defaults (`node`, `undici`) are the gateway's
 * own transport, the floor; the server side and the client side can each be swapped:
 * - server `node`: Node's HTTP server (what the gateway runs on); `express`: the same handler mounted at /geo in an
 *   Express app on Node's server (the Express floor of `npm run bench:library`: what Express costs without geogate,
 *   beside the library scenario's app); `uws`: uWebSockets.js, loaded from the module named
 *   by BENCH_UWS_MODULE (default `@trufflesuite/uws-js-unofficial`, an npm build of it: uWebSockets.js itself is
 *   published on GitHub only, which this machine cannot reach). Not a dependency: `npm i --no-save` it to run.
 * - client `undici`: the forwarder's undici Pool with a bare dispatch handler; `minimal`: keep-alive sockets that
 *   write a fixed request and read a Content-Length answer (no chunked encoding, no timeouts, no limits). The minimal
 *   client is a lower bound for measurement only, not something a gateway could ship.
 * The answer goes back with the gateway's headers. Prints "listening on URL" when ready (the bench's start()).
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool } from 'undici';

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(name);
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  if (v === undefined)
    throw new Error('usage: bare-proxy --backend URL [--server node|express|uws] [--client undici|minimal]');
  return v;
}

const backend = new URL(arg('--backend'));
const server = arg('--server', 'node');
const client = arg('--client', 'undici');
const origin = backend.origin;

/** Called with the backend's status and body (status 502 and an empty body when the call failed). */
type Answer = (status: number, body: Buffer) => void;

/** The undici client: the forwarder's pool options, collecting the body whole. */
function undiciClient(): (path: string, done: Answer) => void {
  const pool = new Pool(origin, { connections: 256, pipelining: 1, keepAliveTimeout: 4_000 });
  const headers = ['accept', 'application/json'];
  return (path, done) => {
    const chunks: Buffer[] = [];
    let status = 502;
    pool.dispatch(
      { origin, path, method: 'GET', headers },
      {
        onRequestStart() {},
        onResponseStart(_c, statusCode) {
          status = statusCode;
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          done(status, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
        },
        onResponseError() {
          done(502, Buffer.alloc(0));
        },
      },
    );
  };
}

/** A socket of the minimal client: its unread bytes and the call waiting for its answer. */
interface Conn {
  socket: net.Socket;
  buf: Buffer | null;
  done: Answer | null;
}

/** The minimal client: idle keep-alive sockets, one request at a time each, Content-Length answers only. */
function minimalClient(): (path: string, done: Answer) => void {
  const idle: Conn[] = [];
  const open = (): Conn => {
    const c: Conn = { socket: net.connect(Number(backend.port), backend.hostname), buf: null, done: null };
    c.socket.setNoDelay(true);
    c.socket.on('data', (d: Buffer) => {
      const buf = c.buf === null ? d : Buffer.concat([c.buf, d]);
      c.buf = buf;
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.toString('latin1', 0, end);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      const done = c.done;
      c.buf = null;
      c.done = null;
      idle.push(c);
      done?.(Number(head.slice(9, 12)), buf.subarray(end + 4, end + 4 + length));
    });
    c.socket.on('error', () => c.done?.(502, Buffer.alloc(0)));
    return c;
  };
  const request = (path: string): string =>
    `GET ${path} HTTP/1.1\r\nhost: ${backend.host}\r\naccept: application/json\r\n\r\n`;
  return (path, done) => {
    const c = idle.pop() ?? open();
    c.done = done;
    c.socket.write(request(path));
  };
}

const get = client === 'minimal' ? minimalClient() : undiciClient();
const backendPath = (url: string): string => (url.startsWith('/v1/') ? url.slice(3) : url);

if (server === 'uws') serveUws();
else serveNode(server === 'express');

/** The floor's handler: the backend's answer written back with the gateway's headers. */
function proxy(req: http.IncomingMessage, res: http.ServerResponse): void {
  get(backendPath(req.url ?? '/'), (status, body) => {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'access-control-allow-origin': '*',
      'cache-control': 'no-store',
      'content-length': String(body.length),
    });
    res.end(body);
  });
}

/** Node's server with the handler as its listener, or mounted at /geo in an Express app (Express strips /geo). */
function serveNode(inExpress: boolean): void {
  let listener: http.RequestListener = proxy;
  if (inExpress) {
    const app = express();
    app.use('/geo', proxy);
    listener = app;
  }
  const s = http.createServer(listener);
  s.keepAliveTimeout = 60_000;
  s.listen(0, '127.0.0.1', () => {
    const a = s.address() as AddressInfo;
    console.log(
      `bare proxy (${inExpress ? 'express' : 'node'}, ${client}): listening on http://127.0.0.1:${a.port}`,
    );
  });
}

/** The part of uWebSockets.js used here. */
interface UwsResponse {
  onAborted(cb: () => void): void;
  cork(cb: () => void): void;
  writeStatus(s: string): UwsResponse;
  writeHeader(k: string, v: string): UwsResponse;
  end(body?: Buffer): void;
}
interface UwsApp {
  get(pattern: string, cb: (res: UwsResponse, req: { getUrl(): string; getQuery(): string }) => void): UwsApp;
  listen(host: string, port: number, cb: (token: unknown) => void): void;
}
interface Uws {
  App(): UwsApp;
  us_socket_local_port(token: unknown): number;
}

function serveUws(): void {
  const name = process.env['BENCH_UWS_MODULE'] ?? '@trufflesuite/uws-js-unofficial';
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional, not a dependency (see the header)
  const uws = require(name) as Uws;
  uws
    .App()
    .get('/*', (res, req) => {
      let aborted = false;
      res.onAborted(() => (aborted = true));
      const q = req.getQuery();
      get(backendPath(req.getUrl()) + (q ? `?${q}` : ''), (status, body) => {
        if (aborted) return;
        res.cork(() =>
          res
            .writeStatus(status === 200 ? '200 OK' : String(status))
            .writeHeader('content-type', 'application/json; charset=utf-8')
            .writeHeader('access-control-allow-origin', '*')
            .writeHeader('cache-control', 'no-store')
            .end(body),
        );
      });
    })
    .listen('127.0.0.1', 0, (token) => {
      if (!token) throw new Error('uws: listen failed');
      console.log(
        `bare proxy (uws, ${client}): listening on http://127.0.0.1:${uws.us_socket_local_port(token)}`,
      );
    });
}

process.on('SIGTERM', () => process.exit(0));

/**
 * A backend whose answers the test drives (D26 passthrough), by the path's end: `…/held/*` sends its status line and a first chunk,
 * then waits for the test to end it (a backend that trickles) or never ends (one that goes silent); `…/big`
 * streams `BIG` bytes only as fast as its socket drains (a slow reader holds it back); `…/late` sends its status
 * line after `LATE_MS`; `…/headers` answers the hostile and the allowed response headers of the header tests; `…/echo` answers the body it got;
 * `/reverse` is our own backend's record (translated calls). It counts its open connections.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { GEOGATE_RECORD } from '../../fixtures/connectors/geogate';

/** Bytes of `…/big`. */
export const BIG = 24 * 1024 * 1024;
const CHUNK = 64 * 1024;
/** Bytes of the first chunk of a held answer. */
export const FIRST = 1024;
/** How long `…/late` waits before its status line. */
export const LATE_MS = 3000;

/** A running stream backend. */
export interface StreamBackend {
  url: string;
  /** Held answers by request path, in arrival order. */
  held: http.ServerResponse[];
  /** Bytes the last `…/big` answer has written so far (only as fast as its socket drains). */
  bigSent(): number;
  /** Open connections now. */
  connections(): number;
  /** The paths of the requests received, in order. */
  received: string[];
  /** Headers of the last request received. */
  lastHeaders(): http.IncomingHttpHeaders;
  /** Refuse connections beyond `n` (Node drops them at once): a backend with that many workers. */
  limit(n: number): void;
  close(): Promise<void>;
}

/** The hostile headers `…/headers` sends, each of which the client must never get from it. */
export const HOSTILE: Record<string, string> = {
  'access-control-allow-origin': 'https://evil.example',
  'access-control-allow-credentials': 'true',
  'x-request-id': 'backend-chosen-id',
  'strict-transport-security': 'max-age=0',
  'www-authenticate': 'Basic realm="geogate"',
  location: 'https://evil.example/phish',
  server: 'Apache/2.4.1 (internal-host-17)',
  via: '1.1 internal-proxy.corp',
  'x-powered-by': 'PHP/5.6.0',
  ratelimit: '"daily";r=999999;t=1',
  'ratelimit-policy': '"daily";q=999999;w=86400',
  'set-cookie': 'upstream=1',
  'content-security-policy': "default-src 'none'",
  link: '<https://evil.example/>; rel=preload',
};

/** The allowed headers `…/headers` sends, which pass as they are. */
export const ALLOWED: Record<string, string> = {
  'content-type': 'application/json; charset=utf-8',
  'content-encoding': 'identity',
  etag: '"v1"',
  'last-modified': 'Sun, 22 Nov 2026 12:00:00 GMT',
  'cache-control': 'public, max-age=60',
  expires: 'Sun, 22 Nov 2026 12:01:00 GMT',
  vary: 'Accept-Language',
  'retry-after': '120',
  'accept-ranges': 'bytes',
  'content-range': 'bytes 0-1/2',
  'x-total-count': '2',
};

/** Start the backend on a free loopback port. */
export async function startStreamBackend(): Promise<StreamBackend> {
  const held: http.ServerResponse[] = [];
  const received: string[] = [];
  const sockets = new Set<Socket>();
  let last: http.IncomingHttpHeaders = {};
  let bigSent = 0;
  const server = http.createServer((req, res) => {
    last = req.headers;
    const path = (req.url ?? '').split('?')[0] ?? '';
    received.push(path);
    if (path.includes('/held/')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(FIRST, 0x61));
      held.push(res);
    } else if (path.endsWith('/big')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(BIG) });
      let sent = 0;
      const chunk = Buffer.alloc(CHUNK, 0x62);
      const more = (): void => {
        while (sent < BIG) {
          sent += CHUNK;
          bigSent = sent;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
    } else if (path.endsWith('/late')) {
      const t = setTimeout(() => res.end('late'), LATE_MS);
      res.on('close', () => clearTimeout(t));
    } else if (path.endsWith('/headers')) {
      const echo = req.headers['x-upstream-key'];
      res.writeHead(200, {
        ...HOSTILE,
        ...ALLOWED,
        ...(typeof echo === 'string' ? { 'x-upstream-key': echo } : {}),
      });
      res.end('{}');
    } else if (path.endsWith('/echo')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(Buffer.concat(chunks));
      });
    } else if (path.endsWith('/reverse')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(GEOGATE_RECORD));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not here"}');
    }
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    received,
    bigSent: () => bigSent,
    connections: () => sockets.size,
    lastHeaders: () => last,
    limit: (n) => void (server.maxConnections = n),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A replay server: a small node http server standing in for a third-party geocoder that cannot run here (Nominatim,
 * Photon, Pelias), answering the responses recorded from that project's own documentation (bench/fixtures/connectors).
 * Each test sets what it answers; every request it received is kept (method, url, headers, body) for assertions.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server does with one request. */
export type Reply =
  | { status: number; body: unknown; type?: string }
  /** Answers after `ms` (a backend slower than the gateway's timeout). */
  | { delayMs: number; status: number; body: unknown }
  /** Closes the connection without answering (a connection reset). */
  | { reset: true };

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ReplayServer {
  url: string;
  received: Received[];
  /** Set the answer for every following request (by path when given a function). */
  reply(r: Reply | ((req: Received) => Reply)): void;
  close(): Promise<void>;
}

/** Start a replay server on 127.0.0.1 (a free port unless `port` is given). */
export async function startReplay(initial: Reply, port = 0): Promise<ReplayServer> {
  let current: Reply | ((req: Received) => Reply) = initial;
  const received: Received[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(r);
      const reply = typeof current === 'function' ? current(r) : current;
      if ('reset' in reply) return req.socket.destroy();
      const send = (): void => {
        const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
        res.writeHead(reply.status, {
          'content-type': 'type' in reply && reply.type ? reply.type : 'application/json; charset=utf-8',
        });
        res.end(text);
      };
      if ('delayMs' in reply) {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!res.destroyed) send();
        }, reply.delayMs);
        timers.add(t);
      } else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    received,
    reply(r) {
      current = r;
    },
    close: () =>
      new Promise((resolve) => {
        timers.forEach((t) => clearTimeout(t));
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A port nothing listens on (bound, then released): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

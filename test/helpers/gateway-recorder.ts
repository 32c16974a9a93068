/**
 * A recording HTTP proxy placed between the gateway and the real backend: it keeps every request it receives
 * (method, URL, headers, body) and can be told to answer 500 or to stall, to prove D11 and "no key reaches the backend".
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

export interface Recorder {
  url: string;
  requests: Recorded[];
  /** 'pass' forwards; 'fail' answers 500; 'reject' answers 400 invalid_parameter; 'stall' never answers. */
  mode: 'pass' | 'fail' | 'reject' | 'stall';
  close(): Promise<void>;
}

/** Start a recorder in front of `backendUrl` on an ephemeral loopback port. */
export async function startRecorder(backendUrl: string): Promise<Recorder> {
  const target = new URL(backendUrl);
  const agent = new http.Agent({ keepAlive: true });
  const stalled: http.ServerResponse[] = [];
  const rec: Recorder = { url: '', requests: [], mode: 'pass', close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      rec.requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (rec.mode === 'stall') return void stalled.push(res);
      if (rec.mode === 'fail') {
        res.writeHead(500, { 'content-type': 'application/problem+json' });
        return void res.end(
          '{"type":"about:blank","title":"Internal","status":500,"detail":"boom","code":"internal"}',
        );
      }
      if (rec.mode === 'reject') {
        res.writeHead(400, { 'content-type': 'application/problem+json' });
        return void res.end(
          '{"type":"about:blank","title":"Bad","status":400,"detail":"lat is out of range","code":"invalid_parameter","parameter":"lat"}',
        );
      }
      const up = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
          agent,
        },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => {
        res.writeHead(502).end();
      });
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rec.close = () =>
    new Promise<void>((resolve) => {
      for (const r of stalled) r.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
      agent.destroy();
    });
  return rec;
}

/**
 * A real HTTP receiver of webhooks that verifies every delivery with the independent `standardwebhooks` package
 * (headers, HMAC, timestamp window), as a customer's endpoint would. It can fail the first N deliveries (500).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got. */
export interface Received {
  id: string;
  /** The verified payload, or null when the signature did not verify. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | null;
  status: number;
}

/** A running receiver. */
export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Verified deliveries answered 2xx. */
  delivered(): Received[];
  /** The secret (`whsec_…`) to verify with, set once the endpoint is created. */
  secret: string;
  /** Fail (500) this many more deliveries before answering 204. */
  failNext: number;
  close(): Promise<void>;
}

/** Start a receiver on 127.0.0.1 (path /hook). */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const r: WebhookReceiver = {
    url: '',
    received: [],
    secret: '',
    failNext: 0,
    delivered: () => r.received.filter((x) => x.payload !== null && x.status < 300),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id'] ?? '');
      let payload: Received['payload'] = null;
      try {
        payload = new Webhook(r.secret).verify(
          body,
          req.headers as Record<string, string>,
        ) as Received['payload'];
      } catch {
        payload = null;
      }
      const status = payload === null ? 401 : r.failNext > 0 ? 500 : 204;
      if (payload !== null && r.failNext > 0) r.failNext -= 1;
      r.received.push({ id, payload, status });
      res.writeHead(status).end(status === 500 ? 'try again' : '');
    });
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return r;
}

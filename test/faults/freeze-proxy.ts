/**
 * A TCP proxy that can freeze: connections stay open (and new ones are accepted) but no byte moves in either
 * direction until thaw(), like a stalled PostgreSQL or a network that silently drops packets.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** The proxy: `port` on 127.0.0.1 forwards to `target` unless frozen. */
export class FreezeProxy {
  private server: Server | null = null;
  private readonly pairs = new Set<[Socket, Socket]>();
  private frozen = false;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Start listening on a free port. */
  async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    this.server = server;
  }

  private accept(client: Socket): void {
    const upstream = connect(this.target);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    for (const s of pair) s.on('error', () => undefined);
    client.pipe(upstream).pipe(client);
    if (this.frozen) this.pause(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  }

  private pause([a, b]: [Socket, Socket]): void {
    a.unpipe(b);
    b.unpipe(a);
    a.pause();
    b.pause();
  }

  /** Stop moving bytes on every connection, present and future. */
  freeze(): void {
    this.frozen = true;
    for (const pair of this.pairs) this.pause(pair);
  }

  /** Move bytes again (what was held is delivered). */
  thaw(): void {
    this.frozen = false;
    for (const [a, b] of this.pairs) {
      a.pipe(b).pipe(a);
      a.resume();
      b.resume();
    }
  }

  /** Close the proxy and every connection. */
  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    this.pairs.clear();
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Rewrite a PostgreSQL URL to go through the proxy. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.host = `127.0.0.1:${this.port}`;
    return u.toString();
  }
}

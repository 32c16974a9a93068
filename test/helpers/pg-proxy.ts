/**
 * A TCP proxy in front of PostgreSQL that a test can cut and restore, to make PostgreSQL unreachable for one store
 * without stopping the machine's server (which other engineers' tests use).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

/** The proxy: `port` on 127.0.0.1 forwards to `target`. */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Start listening (on the same port as before after a cut). */
  async listen(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('close', end);
      upstream.on('close', end);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const addr = server.address();
    this.port = typeof addr === 'object' && addr ? addr.port : 0;
    this.server = server;
  }

  /** Refuse new connections and drop the open ones (PostgreSQL "goes away"). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Rewrite a PostgreSQL URL to go through the proxy. */
  urlFor(url: string): string {
    const u = new URL(url);
    u.host = `127.0.0.1:${this.port}`;
    return u.toString();
  }
}

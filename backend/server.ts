/** startBackend: the backend's HTTP server for in-process use (tests, `npm start`) and for main.ts. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHandler } from './http/handler';
import { defaultDataSource, loadBackendData, type BackendData, type DataSource } from './service';

/** Options of startBackend; host defaults to 127.0.0.1, port to 8090 (0 = ephemeral). */
export interface BackendOptions {
  host?: string;
  port?: number;
  /** Data to serve; defaults to build/geodata and the DB-IP package. */
  dataSource?: DataSource;
  /** Already loaded data (shares one load between servers, e.g. in tests). */
  data?: BackendData;
}

/** A running backend. */
export interface RunningBackend {
  url: string;
  host: string;
  port: number;
  data: BackendData;
  close(): Promise<void>;
}

/** Default port of the backend. */
export const DEFAULT_BACKEND_PORT = 8090;

/** Loads the data, listens, and resolves once ready. */
export async function startBackend(opts: BackendOptions = {}): Promise<RunningBackend> {
  const data = opts.data ?? loadBackendData(opts.dataSource ?? defaultDataSource());
  // Idle keep-alive sockets outlive the clients' own idle timeouts (undici 4 s, Node agents 5 s), so the client,
  // not the server, closes them: no request races a server-side close (ECONNRESET at the gateway).
  const server = http.createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 }, createHandler(data));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? DEFAULT_BACKEND_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    host,
    port,
    data,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeIdleConnections();
      }),
  };
}

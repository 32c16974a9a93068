/** Running the dashboard on its own listener (the gateway's main.ts calls this). */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDashboardApp } from './app';
import type { DashboardDeps } from './deps';

/** A listening dashboard. */
export interface DashboardServer {
  url: string;
  close(): Promise<void>;
}

/** Listen on `deps.config.listen` and resolve with the URL. */
export function startDashboard(deps: DashboardDeps): Promise<DashboardServer> {
  const server = http.createServer(createDashboardApp(deps));
  const { host, port } = deps.config.listen;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const a = server.address() as AddressInfo;
      const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      resolve({
        url: `http://${h}:${a.port}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

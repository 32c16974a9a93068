/**
 * `node dist/bench/run/library-app.js --config FILE`: the library scenario's application (`npm run bench:library`):
 * an Express app with geogate's middleware mounted at /geo (docs/library.md), built from the package's entry.
 * Prints "listening on URL" when ready; SIGTERM closes the server and the gate.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createGeogate } from '../../runtime/library';

async function main(): Promise<void> {
  const i = process.argv.indexOf('--config');
  const configFile = process.argv[i + 1];
  if (i < 0 || configFile === undefined) throw new Error('usage: library-app --config FILE');
  const gate = await createGeogate({ configFile });
  const app = express();
  app.use('/geo', gate.middleware({ host: 'localhost' }));
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void gate.close().then(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

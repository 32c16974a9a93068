/**
 * `node dist/bench/run/library-app.js --config FILE [--server express|node]`: the library scenario's application
 * (`npm run bench:library`), built from the package's entry (docs/library.md): `express`, an Express app with the
 * middleware mounted at /geo; `node`, the middleware as the listener of Node's own HTTP server (no framework: the
 * library's cost alone, beside the standalone process). Prints "listening on URL" when ready; SIGTERM closes the
 * server and the gate.
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
  const mounted = gate.middleware({ host: 'localhost' });
  let server: http.Server;
  const s = process.argv.indexOf('--server');
  if (s >= 0 && process.argv[s + 1] === 'node') server = http.createServer(mounted);
  else {
    const app = express();
    app.use('/geo', mounted);
    server = http.createServer(app);
  }
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

/**
 * Child process of close.test.ts. It never calls process.exit: the parent checks that it exits by itself, which it
 * can only do once the shared store released every socket, timer and pool. Runs the TS sources through
 * TypeScript's transpileModule (no build needed). Prints one JSON line.
 * Usage: node close-child.js unreachable <postgresUrl> <redisUrl>
 *        node close-child.js cut <postgresUrl> <redisUrl> <keyPrefix>
 *   unreachable: createStore({ kind: 'shared' }) must fail; prints the error.
 *   cut: opens the store through two in-process TCP proxies, cuts both, sees an operation fail, closes.
 */
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.CommonJS,
      esModuleInterop: true,
    },
  });
  module._compile(out.outputText, filename);
};

const root = path.join(__dirname, '..', '..', '..');
const { createStore } = require(path.join(root, 'gateway', 'store', 'index.ts'));
const { ManualClock } = require(path.join(root, 'gateway', 'core', 'clock.ts'));

const T0 = Date.UTC(2026, 10, 22, 10);

/** A TCP proxy on an ephemeral loopback port; cut() closes the listener and every connection. */
async function proxy(target) {
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    cut: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

/** The URL with its host and port replaced by the proxy's. */
function via(url, port) {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
}

async function unreachable(postgres, redis) {
  const started = Date.now();
  try {
    const store = await createStore({ kind: 'shared', postgres, redis }, { clock: new ManualClock(T0) });
    await store.close();
    return { opened: true };
  } catch (err) {
    return { opened: false, name: err.name, code: err.code, message: err.message, ms: Date.now() - started };
  }
}

async function cut(postgres, redis, keyPrefix) {
  const pg = new URL(postgres);
  const rd = new URL(redis);
  const pgProxy = await proxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  const redisProxy = await proxy({ host: rd.hostname, port: Number(rd.port || 6379) });
  const store = await createStore(
    { kind: 'shared', postgres: via(postgres, pgProxy.port), redis: via(redis, redisProxy.port), keyPrefix },
    { clock: new ManualClock(T0) },
  );
  const acc = await store.createAccount({ email: 'close-child@example.org' }, T0);
  await store.credit(acc.id, 5, 'top-1', T0);
  pgProxy.cut();
  redisProxy.cut();
  let failedAfterCut = false;
  try {
    await store.credit(acc.id, 5, 'top-2', T0);
  } catch (err) {
    failedAfterCut = err.code === 'store_unavailable';
  }
  // Let ioredis arm its reconnect timers and the drain tick run against the dead proxies before closing.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await store.close();
  return { opened: true, failedAfterCut };
}

const [mode, ...args] = process.argv.slice(2);
(mode === 'cut' ? cut(...args) : unreachable(...args)).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (err) => {
    process.stdout.write(`${JSON.stringify({ crashed: String(err && err.stack) })}\n`);
    process.exitCode = 2;
  },
);

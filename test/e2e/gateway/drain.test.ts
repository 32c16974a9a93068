/**
 * Issue 14 item 4, graceful drain, on the real gateway process: on SIGTERM /readyz turns 503 at once, a client that
 * honours readiness sees no failed request, an in-flight request finishes and the exit code is 0; a second signal
 * exits at once with a non-zero code; in-flight requests outlasting drain.timeoutMs end in a non-zero exit.
 */
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { call, startGatewayProc, useBackendProcess, useTempDir, type RunningProcess } from '../harness';

const backend = useBackendProcess();
let dir: string;
useTempDir('geogate-drain-', (d) => (dir = d));

/** A backend in front of the real one that holds every reverse request `holdMs` before forwarding it. */
async function slowBackend(holdMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const target = backend.url;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    const forward = (): void => {
      void fetch(new URL(req.url ?? '/', target)).then(
        async (r) => {
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
          res.end(Buffer.from(await r.arrayBuffer()));
        },
        () => res.destroy(),
      );
    };
    if (req.url?.includes('reverse')) timers.add(setTimeout(forward, holdMs));
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A gateway process (rule set B, anonymous free requests) with the given drain settings and backend. */
function startGateway(name: string, drain: string, backendUrl = backend.url): Promise<RunningProcess> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'policy: B',
      'listen: { host: 127.0.0.1, port: 0 }',
      'admin: { listen: { host: 127.0.0.1, port: 0 }, token: drain-admin-token-0123 }',
      `backend: { url: "${backendUrl}", timeoutMs: 10000 }`,
      `store: { kind: embedded, path: "${join(dir, `${name}.db`)}" }`,
      'keyPepper: "drain-pepper-0123456789abcdef"',
      'hosts: [{ name: localhost, adapter: native }]',
      'limits: { freePerDay: 1000000 }',
      `drain: ${drain}`,
      'log: { level: silent }',
    ].join('\n'),
  );
  return startGatewayProc(file, 3);
}

const exitOf = (gw: RunningProcess) => {
  if (!gw.exited) throw new Error('no exit promise');
  return gw.exited;
};

test('SIGTERM: /readyz 503 at once, a client honouring readiness sees 0 failures, in-flight finishes, exit 0', async () => {
  const slow = await slowBackend(1200);
  const gw = await startGateway('graceful', '{ delayMs: 800, timeoutMs: 5000 }', slow.url);
  const [mainUrl, adminUrl] = [gw.urls[0] as string, gw.urls[2] as string];
  try {
    expect((await call(adminUrl, '/readyz')).status).toBe(200);
    let ready = true;
    let answered = 0;
    const failures: string[] = [];
    const poller = (async () => {
      while (ready) {
        const r = await call(adminUrl, '/readyz').catch((e: Error) => ({ status: 0, text: e.message }));
        if (r.status !== 200) ready = false;
        else await new Promise((res) => setTimeout(res, 20));
      }
    })();
    const worker = async (): Promise<void> => {
      while (ready) {
        try {
          const r = await call(mainUrl, '/v1/ipv4?ip=8.8.8.8');
          if (r.status === 200) answered++;
          else failures.push(`${r.status}: ${r.text}`);
        } catch (e) {
          failures.push((e as Error).message);
        }
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    while (answered < 50) await new Promise((res) => setTimeout(res, 10));
    const inFlight = call(mainUrl, '/v1/reverse?lat=48.8584&lon=2.2945'); // held 1200 ms: still running when the listeners stop accepting (800 ms)
    await new Promise((res) => setTimeout(res, 100));
    const signalled = Date.now();
    process.kill(gw.pid, 'SIGTERM');
    // Readiness turns 503 while the listeners still accept (well before delayMs).
    let readyz = 200;
    while (readyz === 200) readyz = (await call(adminUrl, '/readyz')).status;
    expect(readyz).toBe(503);
    expect(Date.now() - signalled).toBeLessThan(400);
    await poller;
    await Promise.all(workers);
    expect((await inFlight).status).toBe(200);
    const { code } = await exitOf(gw);
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(800);
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThanOrEqual(50);
  } finally {
    await gw.kill();
    await slow.close();
  }
}, 60_000);

test('a second signal exits at once with a non-zero code', async () => {
  const gw = await startGateway('second', '{ delayMs: 30000, timeoutMs: 30000 }');
  try {
    process.kill(gw.pid, 'SIGTERM');
    let readyz = 200;
    while (readyz === 200) readyz = (await call(gw.urls[2] as string, '/readyz')).status;
    const signalled = Date.now();
    process.kill(gw.pid, 'SIGINT');
    const { code } = await exitOf(gw);
    expect(code).toBe(130); // 128 + SIGINT
    expect(Date.now() - signalled).toBeLessThan(2000);
  } finally {
    await gw.kill();
  }
}, 60_000);

test('in-flight requests outlasting drain.timeoutMs: forced exit with a non-zero code', async () => {
  const slow = await slowBackend(8000);
  const gw = await startGateway('bound', '{ delayMs: 0, timeoutMs: 300 }', slow.url);
  try {
    const held = call(gw.url, '/v1/reverse?lat=48.8584&lon=2.2945').catch(() => null);
    await new Promise((res) => setTimeout(res, 200));
    const signalled = Date.now();
    process.kill(gw.pid, 'SIGTERM');
    const { code } = await exitOf(gw);
    expect(code).toBe(1);
    expect(Date.now() - signalled).toBeLessThan(3000);
    await held;
  } finally {
    await gw.kill();
    await slow.close();
  }
}, 60_000);

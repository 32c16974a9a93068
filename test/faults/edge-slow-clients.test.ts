/**
 * Issue 13 item 9: slow and idle clients against real sockets on loopback. Short configured limits keep every wait
 * under a few seconds; every loop is bounded.
 */
import net from 'node:net';
import { DEFAULT_LIMITS } from '../../gateway/net/server-limits';
import { call, startGatewayHarness, type Harness } from '../helpers/gateway-harness';
import { startBackendProc, type RunningProcess } from '../helpers/gateway-processes';

const SHORT = { headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300, maxHeaderSize: 4096 };
const DASHBOARD = {
  listen: { host: '127.0.0.1', port: 0 },
  publicUrl: 'http://dash.test',
  sessionSecret: 'session-secret-for-fault-tests-0123456789',
  payments: { provider: 'test' },
};
const IP = '/v1/ipv4?ip=8.8.8.8';

/** A raw socket to a listener URL, connected. */
function connect(url: string): Promise<net.Socket> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: u.hostname, port: Number(u.port) }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Resolves when the server closes the socket: what it sent and how long after `since` it closed. */
function closed(s: net.Socket, since: number): Promise<{ ms: number; data: string }> {
  let data = '';
  s.on('data', (c: Buffer) => (data += c.toString('latin1')));
  s.on('error', () => undefined);
  return new Promise((resolve) => s.once('close', () => resolve({ ms: Date.now() - since, data })));
}

let backend: RunningProcess;
let h: Harness | undefined;
beforeAll(async () => {
  backend = await startBackendProc();
}, 60_000);
afterAll(() => backend.stop());
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const start = (serverLimits: Record<string, unknown>): Promise<Harness> =>
  startGatewayHarness({
    policy: 'A',
    backendUrl: backend.url,
    config: {
      hosts: [
        { name: 'localhost', adapter: 'native' },
        { port: 0, adapter: 'native' },
      ],
      dashboard: DASHBOARD,
      serverLimits,
    },
  });

describe('defaults', () => {
  test('a stalled header is cut within 15 s on every listener (timeout plus one check interval)', () => {
    for (const l of Object.values(DEFAULT_LIMITS)) {
      expect(l.headersTimeoutMs + 1_000).toBeLessThanOrEqual(15_000);
      expect(l.requestTimeoutMs).toBeLessThanOrEqual(60_000);
      expect(l.maxConnections).toBeGreaterThan(0);
    }
  });
});

describe('defaults, on a real socket', () => {
  test('a stalled header is cut with 408 within 15 s on the main listener with the default limits', async () => {
    h = await start({});
    const s = await connect(h.mainUrl);
    const t0 = Date.now();
    const done = closed(s, t0);
    s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const r = await done;
    expect(r.ms).toBeGreaterThanOrEqual(DEFAULT_LIMITS.main.headersTimeoutMs - 100);
    expect(r.ms).toBeLessThan(15_000);
    expect(r.data).toMatch(/^HTTP\/1\.1 408 /);
  }, 30_000);
});

describe('slow clients (short configured limits)', () => {
  test('stalled headers and silent connections are cut with 408 on main, per-host, admin and dashboard', async () => {
    h = await start({ main: SHORT, admin: SHORT, dashboard: SHORT });
    const urls = [h.mainUrl, h.hostUrls['port:0'] as string, h.adminUrl, h.dashboardUrl as string];
    const t0 = Date.now();
    const stalled = await Promise.all(urls.map(connect));
    const silent = await Promise.all(urls.map(connect));
    const done = [...stalled, ...silent].map((s) => closed(s, t0));
    for (const s of stalled) s.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const results = await Promise.all(done);
    for (const r of results) {
      expect(r.ms).toBeGreaterThanOrEqual(300);
      expect(r.ms).toBeLessThan(3_000);
    }
    for (const r of results.slice(0, stalled.length)) expect(r.data).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('a trickled body is cut at the request timeout, long before it completes', async () => {
    h = await start({ main: SHORT });
    const s = await connect(h.mainUrl);
    const t0 = Date.now();
    const done = closed(s, t0);
    s.write(`POST ${IP} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n`);
    s.write('Content-Length: 100\r\n\r\n');
    let sent = 0;
    const timer = setInterval(() => {
      if (s.destroyed || sent >= 60) return clearInterval(timer);
      s.write('a');
      sent++;
    }, 50);
    const r = await done;
    clearInterval(timer);
    expect(sent).toBeLessThan(60); // 60 bytes × 50 ms = 3 s: cut well before
    expect(r.ms).toBeLessThan(2_500);
    expect(r.data).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    h = await start({ main: SHORT });
    const s = await connect(h.mainUrl);
    let t0 = 0;
    const done = new Promise<{ ms: number; data: string }>((resolve) => {
      let data = '';
      s.on('data', (c: Buffer) => {
        data += c.toString('latin1');
        if (t0 === 0 && data.includes('\r\n\r\n')) t0 = Date.now();
      });
      s.once('close', () => resolve({ ms: Date.now() - t0, data }));
    });
    s.write('GET /nope HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const r = await done;
    expect(r.data).toMatch(/^HTTP\/1\.1 404 /);
    expect(r.ms).toBeGreaterThanOrEqual(200);
    expect(r.ms).toBeLessThan(2_000);
  });

  test('a header block over maxHeaderSize is refused 431', async () => {
    h = await start({ main: SHORT });
    const s = await connect(h.mainUrl);
    const done = closed(s, Date.now());
    s.write(`GET /nope HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(8_000)}\r\n\r\n`);
    expect((await done).data).toMatch(/^HTTP\/1\.1 431 /);
  });
});

describe('many connections', () => {
  test('maxConnections caps half-open connections per listener; the rest are dropped at accept', async () => {
    h = await start({
      main: { ...SHORT, headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, maxConnections: 30 },
    });
    const t0 = Date.now();
    const sockets = await Promise.all(Array.from({ length: 80 }, () => connect(h?.mainUrl as string)));
    let dropped = 0;
    const all = sockets.map((s) => closed(s, t0).then((r) => (dropped++, r)));
    // Bounded wait for the 50 drops (they happen at accept, not at a timeout).
    for (let i = 0; i < 100 && dropped < 50; i++) await new Promise((r) => setTimeout(r, 20));
    expect(dropped).toBe(50);
    expect(Date.now() - t0).toBeLessThan(4_000); // before the 5 s header timeout: the cap, not the timeout
    for (const s of sockets) s.destroy();
    await Promise.all(all);
    // Capacity is back once the idle connections are gone.
    expect((await call(h.mainUrl, IP)).status).toBe(200);
  });

  test('2,000 idle connections do not delay a normal request beyond 1 s', async () => {
    h = await start({});
    const sockets: net.Socket[] = [];
    for (let batch = 0; batch < 10; batch++) {
      sockets.push(...(await Promise.all(Array.from({ length: 200 }, () => connect(h?.mainUrl as string)))));
    }
    for (const s of sockets) s.on('error', () => undefined);
    expect(sockets.filter((s) => !s.destroyed)).toHaveLength(2_000);
    const t0 = performance.now();
    const r = await call(h.mainUrl, IP);
    const ms = performance.now() - t0;
    expect(r.status).toBe(200);
    expect(ms).toBeLessThan(1_000);
    expect(sockets.filter((s) => !s.destroyed)).toHaveLength(2_000); // all still held: none was dropped
    for (const s of sockets) s.destroy();
  }, 30_000);
});

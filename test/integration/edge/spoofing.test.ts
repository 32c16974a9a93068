/**
 * Issue 13 item 1, the red-team case (D3a): a real proxy on loopback writes `Forwarded: for=<peer>` and passes the
 * client's own X-Forwarded-For through (as HAProxy `option forwarded` and nginx do). Clients connect from distinct
 * loopback addresses (127.0.0.50, 127.0.0.66), so each has its own real peer address.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, startGatewayHarness, type Answer, type Harness } from '../../helpers/gateway-harness';
import { startBackendProc, type RunningProcess } from '../../helpers/gateway-processes';

const IP = '/v1/ipv4?ip=8.8.8.8';
const ATTACKER = '127.0.0.50';
const VICTIM = '127.0.0.66';

/** A forwarding proxy: appends `Forwarded: for=<peer>` and leaves every other header (X-Forwarded-For) as sent. */
async function startProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const t = new URL(target);
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    const prior = headers['forwarded'];
    headers['forwarded'] = `${prior ? `${String(prior)}, ` : ''}for=${req.socket.remoteAddress ?? 'unknown'}`;
    const up = http.request(
      {
        host: t.hostname,
        port: t.port,
        path: req.url,
        method: req.method,
        headers,
        localAddress: '127.0.0.1',
        agent: false,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** One request to the proxy from a given loopback source address. */
function from(proxyUrl: string, source: string, headers: Record<string, string>): Promise<Answer> {
  const u = new URL(IP, proxyUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(u, { headers, localAddress: source, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

let backend: RunningProcess;
let h: Harness;
let proxy: { url: string; close(): Promise<void> };
const logs: string[] = [];
beforeAll(async () => {
  backend = await startBackendProc();
}, 60_000);
afterAll(() => backend.stop());
afterEach(async () => {
  await proxy?.close();
  await h?.close();
  logs.length = 0;
});

const start = async (policy: 'A' | 'B', header: 'forwarded' | 'x-forwarded-for') => {
  h = await startGatewayHarness({
    policy,
    backendUrl: backend.url,
    logs,
    config: { trustProxy: ['127.0.0.1/32'], trustProxyHeader: header, limits: { freePerDay: 3 } },
  });
  proxy = await startProxy(h.mainUrl);
};
const usage = async (subject: string) =>
  (await h.store.usage([subject], '2026-11-22', '2026-11-22'))[0] ?? { free: 0, billed: 0, refused: 0 };

describe('D3a behind a proxy that writes Forwarded and passes X-Forwarded-For through', () => {
  test('rule set A: forging X-Forwarded-For does not exceed an allowance of 3', async () => {
    await start('A', 'forwarded');
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const forged = `198.51.100.${i + 1}`;
      statuses.push((await from(proxy.url, ATTACKER, { 'x-forwarded-for': forged })).status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(17);
    expect(await usage(`network:${ATTACKER}/32`)).toMatchObject({ free: 3 });
    expect(await usage('network:198.51.100.1/32')).toMatchObject({ free: 0 });
  });

  test("rule set B: a forged address cannot draw a victim's whitelisted allowance or credits", async () => {
    await start('B', 'forwarded');
    const victim = await h.account({ balance: 5 });
    await h.store.addWhitelist(victim.id, `${VICTIM}/32`, h.clock.now());
    for (let i = 0; i < 10; i++) await from(proxy.url, ATTACKER, { 'x-forwarded-for': VICTIM });
    expect(await usage(`account:${victim.id}`)).toMatchObject({ free: 0, billed: 0 });
    expect((await h.store.getAccount(victim.id))?.balance).toBe(5);
    expect(await usage(`network:${ATTACKER}/32`)).toMatchObject({ free: 3 });
    // Control: the victim's own request through the proxy is the victim's (the test can tell the two apart).
    const own = await from(proxy.url, VICTIM, {});
    expect(own.status).toBe(200);
    expect(await usage(`account:${victim.id}`)).toMatchObject({ free: 1 });
  });

  test('with the default header, the Forwarded header a client sends is ignored', async () => {
    await start('A', 'x-forwarded-for');
    // Direct from a trusted peer (127.0.0.1): Forwarded is not the named header, so only X-Forwarded-For counts.
    for (let i = 0; i < 4; i++) {
      await call(h.mainUrl, IP, {
        headers: { forwarded: `for=198.51.100.${i + 1}`, 'x-forwarded-for': '203.0.113.7' },
      });
    }
    expect(await usage('network:203.0.113.7/32')).toMatchObject({ free: 3 });
    expect(await usage('network:198.51.100.1/32')).toMatchObject({ free: 0 });
  });
});

describe('D3a: an unparseable client entry is refused 400, never counted against the proxy', () => {
  test.each([
    ['x-forwarded-for', { 'x-forwarded-for': 'not-an-address' }],
    ['forwarded', { forwarded: 'for=_hidden' }],
  ] as const)('%s', async (header, headers) => {
    await start('A', header);
    const r = await call(h.mainUrl, IP, { headers });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_forwarded', parameter: header });
    expect(await usage('network:127.0.0.1/32')).toMatchObject({ free: 0 });
    const warn = logs.map((l) => JSON.parse(l) as { level: number; msg: string }).find((l) => l.level === 40);
    expect(warn?.msg).toBe('invalid forwarded entry');
  });

  test('ports are addresses: 203.0.113.9:5678 and "[2001:db8::1]:443" count as their addresses', async () => {
    await start('A', 'x-forwarded-for');
    expect((await call(h.mainUrl, IP, { headers: { 'x-forwarded-for': '203.0.113.9:5678' } })).status).toBe(
      200,
    );
    expect(await usage('network:203.0.113.9/32')).toMatchObject({ free: 1 });
    await h.close();
    await proxy.close();
    await start('A', 'forwarded');
    const f = { forwarded: 'for="[2001:db8::1]:443"' };
    expect((await call(h.mainUrl, '/v1/ipv4?ip=8.8.8.8', { headers: f })).status).toBe(200);
    expect(await usage('network:2001:db8::/64')).toMatchObject({ free: 1 });
  });
});

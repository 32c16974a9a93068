/** Acceptance 10 and 11: backend failures charge and count nothing (D11); no key ever reaches the backend or a log. */
import http from 'node:http';
import { call, type Harness } from '../../helpers/gateway-harness';
import { startBackendProc } from '../../helpers/gateway-processes';
import { startRecorder, type Recorder } from '../../helpers/gateway-recorder';
import { useFixture } from '../../helpers/fixture';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const backend = gw.backend;
const rec = useFixture(
  'recorder',
  () => startRecorder(backend.url),
  (r) => r.close(),
);
beforeEach(() => {
  rec.mode = 'pass';
  rec.requests.length = 0;
});

const REV = '/v1/reverse?lat=40.7580&lon=-73.9855';
let h: Harness;

const usage = async (subject: string) =>
  (await h.store.usage([subject], '2026-11-22', '2026-11-22'))[0] ?? { free: 0, billed: 0, refused: 0 };

describe.each(['A', 'B'] as const)('rule set %s: backend failures (D11)', (policy) => {
  test('5xx → 502, timeout → 504, 400 → invalid_parameter, stopped backend → 502; nothing charged or counted', async () => {
    const own = await startBackendProc();
    const ownRec = await startRecorder(own.url);
    h = await gw.start({
      policy,
      backendUrl: ownRec.url,
      config: {
        backend: { url: ownRec.url, timeoutMs: 300 },
        limits: { freePerDay: 1 },
        trustProxy: ['127.0.0.1/32'],
      },
    });
    try {
      const acc = await h.account({ balance: 5 });
      const { key, record } = await h.key(acc.id);
      const keyed = () =>
        call(h.mainUrl, REV, { headers: { 'x-api-key': key, 'x-forwarded-for': '203.0.113.1' } });
      const anonymous = () => call(h.mainUrl, REV, { headers: { 'x-forwarded-for': '203.0.113.77' } });
      expect((await keyed()).status).toBe(200); // uses the key's free request: the next keyed ones are billed
      const cases: [Recorder['mode'], number, string][] = [
        ['fail', 502, 'backend_unavailable'],
        ['stall', 504, 'backend_timeout'],
        ['reject', 400, 'invalid_parameter'],
      ];
      for (const [mode, status, code] of cases) {
        ownRec.mode = mode;
        const r = await keyed();
        expect([r.status, r.json.code]).toEqual([status, code]);
        expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
        const a = await anonymous();
        expect([a.status, a.json.code]).toEqual([status, code]);
      }
      ownRec.mode = 'pass';
      await own.stop(); // the real backend process is gone
      const down = await keyed();
      expect([down.status, down.json.code]).toEqual([502, 'backend_unavailable']);
      expect((await h.store.getAccount(acc.id))?.balance).toBe(5);
      expect(await usage(`key:${record.id}`)).toMatchObject({ free: 1, billed: 0 });
      expect(await usage('network:203.0.113.77/32')).toMatchObject({ free: 0, billed: 0 });
      expect((await h.store.ledger(acc.id, 10)).filter((e) => e.kind === 'charge')).toEqual([]);
    } finally {
      await ownRec.close();
      await own.kill();
    }
  }, 60_000);
});

const FORM = 'application/x-www-form-urlencoded';
const POSITIONS: [
  string,
  (k: string) => { path: string; method?: string; headers?: Record<string, string>; body?: string },
][] = [
  ['x-api-key', (k) => ({ path: REV, headers: { 'x-api-key': k } })],
  ['bearer', (k) => ({ path: REV, headers: { authorization: `Bearer ${k}` } })],
  [
    'basic',
    (k) => ({ path: REV, headers: { authorization: 'Basic ' + Buffer.from(`${k}:`).toString('base64') } }),
  ],
  ['query-key', (k) => ({ path: `${REV}&key=${k}` })],
  ['x-goog-api-key', (k) => ({ path: REV, headers: { 'x-goog-api-key': k } })],
  [
    'form-key',
    (k) => ({
      path: '/v1/reverse',
      method: 'POST',
      headers: { 'content-type': FORM },
      body: `lat=1&lon=2&key=${k}`,
    }),
  ],
];

describe.each(['A', 'B'] as const)('rule set %s: the backend never receives a key (D14)', (policy) => {
  test.each(POSITIONS)(
    'position %s: nothing of the key in the backend request, the answer or the logs',
    async (_p, make) => {
      const logs: string[] = [];
      h = await gw.start({
        policy,
        backendUrl: rec.url,
        logs,
        // B is widened to every position so that each one is proven (D2).
        config: policy === 'B' ? { credentials: { accept: POSITIONS.map(([p]) => p) } } : {},
      });
      const acc = await h.account({ balance: 5 });
      const { key } = await h.key(acc.id);
      const o = make(key);
      const r = await call(h.mainUrl, o.path, {
        ...o,
        headers: { ...o.headers, cookie: `k=${key}`, 'x-other': key },
      });
      expect(r.status).toBe(200);
      expect(rec.requests).toHaveLength(1);
      const seen = rec.requests[0];
      const everything = JSON.stringify(seen);
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(3)); // not even the key body (e.g. base64-free forms)
      expect(everything).not.toContain(Buffer.from(`${key}:`).toString('base64'));
      expect(seen?.method).toBe('GET');
      // Only what the gateway itself sends; x-request-id is the gateway's own id (issue 14 item 2), never the client's.
      expect(Object.keys(seen?.headers ?? {}).sort()).toEqual([
        'accept',
        'connection',
        'host',
        'x-request-id',
      ]);
      expect(r.text).not.toContain(key);
      expect(logs.join('\n')).not.toContain(key);
      expect(logs.some((l) => /"path":"\/v1\/reverse".*"identity":"key"/.test(l))).toBe(true);
    },
  );
});

describe('the caller address is passed on for /v1/ipv4 (D22)', () => {
  test('the backend is asked for the client address, not the proxy', async () => {
    h = await gw.start({
      policy: 'A',
      backendUrl: rec.url,
      config: { trustProxy: ['127.0.0.1/32'] },
    });
    const r = await call(h.mainUrl, '/v1/ipv4', { headers: { 'x-forwarded-for': '8.8.4.4' } });
    expect(r.status).toBe(200);
    expect(r.json.ip).toBe('8.8.4.4');
    expect(rec.requests.map((q) => q.url)).toEqual(['/ipv4?ip=8.8.4.4']);
  });
});

describe('a client that leaves before the backend answers (D11)', () => {
  test('its admission is released: nothing charged, nothing counted', async () => {
    h = await gw.start({
      policy: 'A',
      backendUrl: rec.url,
      config: { backend: { url: rec.url, timeoutMs: 30_000 }, limits: { freePerDay: 0 } },
    });
    const acc = await h.account({ balance: 3 });
    const { key } = await h.key(acc.id);
    rec.mode = 'stall';
    await new Promise<void>((resolve) => {
      const req = http.get(`${h.mainUrl}${REV}`, { headers: { 'x-api-key': key } });
      req.on('error', () => resolve());
      // Leave once the backend has the request (the admission is then taken).
      const poll = setInterval(() => {
        if (rec.requests.length > 0) {
          clearInterval(poll);
          req.destroy();
        }
      }, 5);
    });
    // The release follows the close event; wait for the balance to come back (bounded).
    const deadline = Date.now() + 3000;
    let balance = (await h.store.getAccount(acc.id))?.balance;
    while (balance !== 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      balance = (await h.store.getAccount(acc.id))?.balance;
    }
    expect(balance).toBe(3);
    expect((await h.store.ledger(acc.id, 10)).filter((e) => e.kind === 'charge')).toEqual([]);
  });
});

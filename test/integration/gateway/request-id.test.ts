/** Issue 14 item 2: request ids round trip (answer header, log line, error body, backend request). */
import { call, type Harness } from '../../helpers/gateway-harness';
import { startRecorder, type Recorder } from '../../helpers/gateway-recorder';
import { useFixture } from '../../helpers/fixture';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const rec = useFixture(
  'recorder',
  () => startRecorder(gw.backend.url),
  (r: Recorder) => r.close(),
);
beforeEach(() => {
  rec.requests.length = 0;
});

const REV = '/v1/reverse?lat=40.7580&lon=-73.9855';
const GENERATED = /^[A-Za-z0-9_-]{8}-[0-9a-z]+$/;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** A gateway that passes the id to the backend, trusting (or not) the loopback test client as a proxy. */
async function start(trusted: boolean, logs: string[]): Promise<Harness> {
  return gw.start({
    policy: 'A',
    backendUrl: rec.url,
    logs,
    config: {
      backend: { url: rec.url, timeoutMs: 5000, passRequestId: true },
      trustProxy: [trusted ? '127.0.0.1/32' : '10.0.0.0/8'],
      log: { requestId: true },
    },
  });
}

/** The request log lines of one id. */
function requestLines(logs: string[], id: string): Record<string, unknown>[] {
  return logs
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['msg'] === 'request' && l['requestId'] === id);
}

describe('request ids (issue 14 item 2)', () => {
  test('a trusted proxy’s X-Request-Id is kept: answer header, log line and backend request', async () => {
    const logs: string[] = [];
    const h = await start(true, logs);
    const r = await call(h.mainUrl, REV, { headers: { 'x-request-id': 'lb-42.a:b_c-d' } });
    expect(r.status).toBe(200);
    expect(r.headers['x-request-id']).toBe('lb-42.a:b_c-d');
    expect(requestLines(logs, 'lb-42.a:b_c-d')).toHaveLength(1);
    expect(rec.requests).toHaveLength(1);
    expect(rec.requests[0]?.headers['x-request-id']).toBe('lb-42.a:b_c-d');
  });

  test('a trusted proxy’s traceparent gives its trace-id; an invalid X-Request-Id is replaced', async () => {
    const h = await start(true, []);
    const traced = await call(h.mainUrl, REV, {
      headers: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` },
    });
    expect(traced.headers['x-request-id']).toBe(TRACE);
    const bad = await call(h.mainUrl, REV, { headers: { 'x-request-id': 'has space' } });
    expect(bad.headers['x-request-id']).toMatch(GENERATED);
    const long = await call(h.mainUrl, REV, { headers: { 'x-request-id': 'x'.repeat(129) } });
    expect(long.headers['x-request-id']).toMatch(GENERATED);
  });

  test('from an untrusted peer the incoming id is replaced; absent, one is generated; ids differ', async () => {
    const logs: string[] = [];
    const h = await start(false, logs);
    const a = await call(h.mainUrl, REV, { headers: { 'x-request-id': 'spoofed-1' } });
    const b = await call(h.mainUrl, REV);
    const ids = [a.headers['x-request-id'], b.headers['x-request-id']];
    for (const id of ids) expect(id).toMatch(GENERATED);
    expect(ids[0]).not.toBe(ids[1]);
    expect(rec.requests.map((q) => q.headers['x-request-id'])).toEqual(ids);
    expect(requestLines(logs, String(ids[0]))).toHaveLength(1);
    expect(logs.join('\n')).not.toContain('spoofed-1');
  });

  test('an error body (problem+json) carries request_id equal to the header, also on a preflight header', async () => {
    const logs: string[] = [];
    const h = await start(false, logs);
    const r = await call(h.mainUrl, '/v1/reverse?lat=999&lon=0');
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.request_id).toBe(r.headers['x-request-id']);
    expect(requestLines(logs, r.json.request_id as string)).toHaveLength(1);
    const pre = await call(h.mainUrl, '/v1/reverse', { method: 'OPTIONS' });
    expect(pre.status).toBe(204);
    expect(pre.headers['x-request-id']).toMatch(GENERATED);
    expect(r.headers['access-control-expose-headers']).toContain('X-Request-Id');
  });

  test('with backend.passRequestId: false the backend request carries no X-Request-Id (on by default)', async () => {
    const h = await gw.start({
      policy: 'A',
      backendUrl: rec.url,
      config: { backend: { url: rec.url, passRequestId: false } },
    });
    expect((await call(h.mainUrl, REV)).status).toBe(200);
    expect(rec.requests[0]?.headers['x-request-id']).toBeUndefined();
  });
});

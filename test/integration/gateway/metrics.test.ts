/** Issue 14 item 1: Prometheus metrics scraped from a real gateway's admin listener and parsed. */
import { call, type Answer, type Harness } from '../../helpers/gateway-harness';
import { parseExposition, sampleValue, type Sample } from '../../helpers/exposition';
import { useGatewayFixture } from './fixture';

const gw = useGatewayFixture();
const IP = '/v1/ipv4?ip=8.8.8.8';
let h: Harness;

const anon = (ip: string) => call(h.mainUrl, IP, { headers: { 'x-forwarded-for': ip } });
const keyed = (key: string, ip: string) =>
  call(h.mainUrl, IP, { headers: { 'x-api-key': key, 'x-forwarded-for': ip } });
const codes = (answers: Answer[]) => answers.map((a) => (a.status === 200 ? 'ok' : String(a.json?.code)));

async function scrape(): Promise<{ text: string; samples: Sample[]; type: string | null }> {
  const r = await fetch(`${h.adminUrl}/metrics`); // no bearer token: scrapers have none (docs/decisions.md)
  expect(r.status).toBe(200);
  const text = await r.text();
  return { text, samples: parseExposition(text), type: r.headers.get('content-type') };
}

describe('/metrics on the admin listener', () => {
  test('anonymous, billed and refused requests are counted by host, adapter, identity and code; no key, account or address appears', async () => {
    h = await gw.start({ policy: 'A', config: { trustProxy: ['127.0.0.1/32'], limits: { freePerDay: 2 } } });
    const acc = await h.account({ balance: 1 });
    const { key, record } = await h.key(acc.id);
    const anonymous = [await anon('203.0.113.5'), await anon('203.0.113.5'), await anon('203.0.113.5')];
    const withKey = [];
    for (let i = 0; i < 4; i++) withKey.push(await keyed(key, '198.51.100.7'));
    const bogus = await keyed('AIzaSyBogusBogusBogusBogusBogusBogus0000', '198.51.100.7');
    expect(codes(anonymous)).toEqual(['ok', 'ok', 'quota_exceeded']);
    expect(codes(withKey)).toEqual(['ok', 'ok', 'ok', 'no_credits']); // 2 free, 1 billed, then no credit
    expect(bogus.status).toBe(401);

    const { text, samples, type } = await scrape();
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const req = (identity: string, code: string) =>
      sampleValue(samples, 'geogate_requests_total', {
        host: 'localhost',
        adapter: 'native',
        identity,
        code,
      });
    expect(req('anonymous', 'ok')).toBe(2);
    expect(req('anonymous', 'quota_exceeded')).toBe(1);
    expect(req('key', 'ok')).toBe(3);
    expect(req('key', 'no_credits')).toBe(1);
    expect(req('none', String(bogus.json.code))).toBe(1);
    expect(samples.filter((s) => s.name === 'geogate_requests_total').reduce((n, s) => n + s.value, 0)).toBe(
      8,
    );

    expect(sampleValue(samples, 'geogate_admissions_total', { billing: 'free' })).toBe(4);
    expect(sampleValue(samples, 'geogate_admissions_total', { billing: 'billed' })).toBe(1);
    expect(sampleValue(samples, 'geogate_admission_refusals_total', { code: 'quota_exceeded' })).toBe(1);
    expect(sampleValue(samples, 'geogate_admission_refusals_total', { code: 'no_credits' })).toBe(1);
    expect(sampleValue(samples, 'geogate_backend_duration_seconds_count', { backend: 'ipv4' })).toBe(5);
    expect(
      sampleValue(samples, 'geogate_backend_duration_seconds_bucket', { backend: 'ipv4', le: '+Inf' }),
    ).toBe(5);
    expect(sampleValue(samples, 'geogate_admission_duration_seconds_count')).toBe(8); // the unknown key is refused by identify
    expect(sampleValue(samples, 'geogate_request_duration_seconds_count', { host: 'localhost' })).toBe(8);
    expect(sampleValue(samples, 'geogate_store_duration_seconds_count', { op: 'admit' })).toBe(7);
    expect(sampleValue(samples, 'geogate_store_duration_seconds_count', { op: 'keep' })).toBe(5);
    expect(sampleValue(samples, 'geogate_store_failures_total', { op: 'admit' })).toBe(0);
    expect(sampleValue(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(samples.some((s) => s.name === 'process_resident_memory_bytes')).toBe(true);

    for (const secret of [key, acc.id, record.id, record.prefix, acc.email, '203.0.113.5', '198.51.100.7']) {
      expect(text).not.toContain(secret);
    }
    const labelNames = new Set(
      samples.filter((s) => s.name.startsWith('geogate_')).flatMap((s) => Object.keys(s.labels)),
    );
    expect([...labelNames].sort()).toEqual([
      'adapter',
      'backend',
      'billing',
      'code',
      'host',
      'identity',
      'le',
      'node', // geogate_build_info: the Node.js version
      'op',
      'version', // geogate_build_info: the package version
    ]);
  });

  test('each gateway has its own registry: a second instance starts from zero', async () => {
    h = await gw.start({ policy: 'A', config: { trustProxy: ['127.0.0.1/32'] } });
    expect((await anon('203.0.113.9')).status).toBe(200);
    const first = h;
    h = await gw.start({ policy: 'A', config: { trustProxy: ['127.0.0.1/32'] } });
    const { samples } = await scrape();
    expect(sampleValue(samples, 'geogate_requests_total', { identity: 'anonymous', code: 'ok' })).toBe(0);
    h = first;
    const again = await scrape();
    expect(sampleValue(again.samples, 'geogate_requests_total', { identity: 'anonymous', code: 'ok' })).toBe(
      1,
    );
  });
});
